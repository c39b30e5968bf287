'use strict';
/**
 * `npm run check:tarball` (after `npm run build`): checks what `npm publish` would upload.
 * - the files `npm pack --dry-run` lists: package.json, README, licence, changelog and dist/ only;
 *   no TypeScript sources (declarations aside), tests, source maps or local config;
 * - every node and credential that package.json's `n8n` block names is shipped, with its codex
 *   file and the icons it references;
 * - no shipped file holds an absolute path of the build machine;
 * - every link of the README and docs works: relative links (which GitHub, and the npm page for
 *   the README, resolve against package.json `repository`) name files of the repository and
 *   headings of their targets; none spells out the repository's GitHub URL;
 * - package.json `repository` is the one setting that names the repository: the shipped codex
 *   files link into it (built from it), homepage (npm page or repository) and bugs agree with it,
 *   and its placeholder owner appears nowhere else. The placeholder itself is reported; with
 *   --release (the release workflow's tarball check and publish step) it is refused.
 * Exits 1 with one line per problem.
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync } = require('node:child_process');

const { checkMarkdownFile, documentationFiles } = require('./lib/markdown-links');
const { PLACEHOLDER_OWNER, githubRepo, repositoryOf } = require('./lib/repository');

const ROOT = path.resolve(__dirname, '..');

const problems = [];
const fail = (message) => problems.push(message);

/** What `npm pack` would put in the tarball: paths relative to the package root. */
function packedFiles() {
	const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
		cwd: ROOT,
		encoding: 'utf8',
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	const [pack] = JSON.parse(out);
	return { files: pack.files.map((f) => f.path), size: pack.size, unpackedSize: pack.unpackedSize };
}

const ALLOWED_TOP = /^(package\.json|README\.md|LICEN[CS]E(\.md)?|CHANGELOG\.md)$/i;

function checkFileList(files) {
	for (const file of files) {
		if (ALLOWED_TOP.test(file)) continue;
		if (!file.startsWith('dist/'))
			fail(`ships ${file}: only dist/ and the package docs belong in the tarball`);
		else if (file.endsWith('.map'))
			fail(`ships the source map ${file} (the build makes none: tsconfig.build.json)`);
		else if (file.endsWith('.ts') && !file.endsWith('.d.ts'))
			fail(`ships TypeScript source ${file}`);
		else if (/^dist\/(test|bench|emulator|scripts)\//.test(file) || /\.(test|spec)\.js$/.test(file))
			fail(`ships test or tooling file ${file}`);
		else if (/(^|\/)(\.env|\.npmrc|tsconfig[^/]*\.json|.*\.tsbuildinfo)$/.test(file))
			fail(`ships local configuration ${file}`);
	}
}

function checkN8nEntries(pkg, files) {
	const shipped = new Set(files);
	const entries = [...(pkg.n8n?.nodes ?? []), ...(pkg.n8n?.credentials ?? [])];
	if (!entries.length) fail('package.json has no n8n.nodes / n8n.credentials');
	for (const entry of entries) {
		if (!shipped.has(entry)) {
			fail(
				`package.json n8n block names ${entry}, which the tarball lacks (run npm run build first)`,
			);
			continue;
		}
		if (entry.endsWith('.node.js') && !shipped.has(entry.replace(/\.js$/, '.json')))
			fail(`${entry} has no codex file ${entry.replace(/\.js$/, '.json')} beside it`);
		const source = fs.readFileSync(path.join(ROOT, entry), 'utf8');
		for (const [, icon] of source.matchAll(/['"]file:([^'"]+)['"]/g)) {
			const iconPath = path.posix.join(path.posix.dirname(entry), icon);
			if (!shipped.has(iconPath))
				fail(`${entry} references icon ${icon}, not shipped at ${iconPath}`);
		}
	}
}

/** Absolute paths of this machine that must never end up in a published file. */
function machinePathPatterns() {
	const literal = [ROOT, os.homedir(), os.tmpdir()].filter((p) => p && p.length > 4);
	const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
	return [
		...literal.map((p) => ({ name: p, re: new RegExp(escape(p)) })),
		{ name: 'a home directory', re: /["'(\s](\/home\/|\/Users\/)[\w.-]+\// },
		{ name: 'a Windows drive path', re: /["'(\s][A-Za-z]:\\\\[\w.-]+/ },
		{ name: 'a file:// URL', re: /file:\/\/\// },
	];
}

function checkNoMachinePaths(files) {
	const patterns = machinePathPatterns();
	for (const file of files) {
		if (!/\.(js|json|md|d\.ts|svg)$/.test(file)) continue;
		const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
		for (const { name, re } of patterns)
			if (re.test(text)) fail(`${file} contains an absolute path (${name})`);
	}
}

/** Every link of the README and docs resolves (see lib/markdown-links.js). */
function checkDocumentationLinks(repository) {
	let links = 0;
	for (const file of documentationFiles(ROOT)) {
		const result = checkMarkdownFile(ROOT, file, repository?.name ?? 'n8n-nodes-botdojo');
		result.problems.forEach(fail);
		links += result.links;
	}
	return links;
}

/** Where the placeholder owner may hide besides package.json repository. */
const PLACEHOLDER_USES = new RegExp(
	`github\\.com[/:]${PLACEHOLDER_OWNER}\\b|\\b${PLACEHOLDER_OWNER}@|Copyright[^\\n]*\\b${PLACEHOLDER_OWNER}\\b`,
);

/** The placeholder owner stays in one setting: no other file or package.json field holds it. */
function checkPlaceholderOnlyInRepository(pkg, files) {
	const { repository: _one, ...otherFields } = pkg;
	for (const [field, value] of Object.entries(otherFields))
		if (PLACEHOLDER_USES.test(JSON.stringify(value)))
			fail(
				`package.json ${field} holds the placeholder ${PLACEHOLDER_OWNER}: derive it from repository, or drop it`,
			);
	const codex = (file) => /\.node\.json$/.test(file) && file.startsWith('dist/');
	const texts = [...documentationFiles(ROOT), 'LICENSE.md', ...files.filter((f) => !codex(f))];
	for (const file of new Set(texts)) {
		if (!/\.(js|json|md)$/.test(file) || file === 'package.json') continue;
		if (!fs.existsSync(path.join(ROOT, file))) continue;
		if (PLACEHOLDER_USES.test(fs.readFileSync(path.join(ROOT, file), 'utf8')))
			fail(`${file} holds the placeholder ${PLACEHOLDER_OWNER}: only package.json repository may`);
	}
}

/** The shipped codex files link into the repository that package.json names (built from it). */
function checkCodexLinks(repository, files) {
	for (const file of files.filter((f) => f.startsWith('dist/') && f.endsWith('.node.json'))) {
		const codex = JSON.parse(fs.readFileSync(path.join(ROOT, file), 'utf8'));
		for (const { url } of codex.resources?.primaryDocumentation ?? []) {
			if (!/github\.com/.test(url)) continue;
			const prefix = `${repository.web}/blob/HEAD/`;
			if (!url.startsWith(prefix))
				fail(`${file} links to ${url}, not into ${repository.web}: run npm run build again`);
			else if (!fs.existsSync(path.join(ROOT, url.slice(prefix.length))))
				fail(`${file} links to ${url}, but the repository has no ${url.slice(prefix.length)}`);
		}
	}
}

function checkRepositoryFields(pkg, { release }) {
	const repository = repositoryOf(pkg);
	if (!repository) {
		fail('package.json repository is missing or not a GitHub URL');
		return undefined;
	}
	// npm derives the issues link from repository; a given homepage is the package's npm page or
	// the repository (n8n's lint asks for one), a given bugs link the repository's.
	const npmPage = `https://www.npmjs.com/package/${pkg.name}`;
	for (const [field, url] of [
		['homepage', pkg.homepage === npmPage ? undefined : pkg.homepage],
		['bugs.url', pkg.bugs?.url],
	]) {
		const named = url && githubRepo(url);
		if (url && (!named || `${named.owner}/${named.name}` !== repository.slug))
			fail(
				`package.json ${field} (${url}) names neither ${npmPage} nor the repository ${repository.slug}`,
			);
	}
	if (repository.isPlaceholder && release)
		fail(
			`package.json repository still names the placeholder ${repository.slug}: set it to the real ` +
				'GitHub repository before publishing (every link follows it: npm run build, then check again)',
		);
	return repository;
}

function main() {
	const release = process.argv.includes('--release');
	const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
	if (!fs.existsSync(path.join(ROOT, 'dist'))) {
		console.error('check-tarball: no dist/; run npm run build first.');
		process.exit(1);
	}
	const { files, size, unpackedSize } = packedFiles();
	checkFileList(files);
	checkN8nEntries(pkg, files);
	checkNoMachinePaths(files);
	const repository = checkRepositoryFields(pkg, { release });
	const links = checkDocumentationLinks(repository);
	checkPlaceholderOnlyInRepository(pkg, files);
	if (repository) checkCodexLinks(repository, files);
	if (Object.keys(pkg.dependencies ?? {}).length)
		fail(
			`package.json has runtime dependencies (${Object.keys(pkg.dependencies).join(', ')}); n8n allows none`,
		);
	if (problems.length) {
		console.error(`check-tarball: ${problems.length} problem(s) in ${pkg.name}@${pkg.version}:`);
		for (const problem of problems) console.error(`  - ${problem}`);
		process.exit(1);
	}
	console.log(
		`check-tarball: ${pkg.name}@${pkg.version} ships ${files.length} files ` +
			`(${(size / 1024).toFixed(0)} kB packed, ${(unpackedSize / 1024).toFixed(0)} kB unpacked): ` +
			`only dist/ and the package docs, no sources, tests or source maps, no absolute paths; ` +
			`${links} links of the README and docs resolve; repository ${repository.slug}.`,
	);
	if (repository.isPlaceholder)
		console.log(
			`check-tarball: package.json repository names the placeholder ${repository.slug}: ` +
				'the release workflow refuses to publish until the real repository is set.',
		);
}

main();
