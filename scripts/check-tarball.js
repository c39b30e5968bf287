'use strict';
/**
 * `npm run check:tarball` (after `npm run build`): checks what `npm publish` would upload.
 * - the files `npm pack --dry-run` lists: package.json, README, licence, changelog and dist/ only;
 *   no TypeScript sources (declarations aside), tests, source maps or local config;
 * - every node and credential that package.json's `n8n` block names is shipped, with its codex
 *   file and the icons it references;
 * - no shipped file holds an absolute path of the build machine;
 * - every link in the README resolves on the npm page: relative links must name shipped files
 *   (npm has no repository tree to resolve them against), #anchors must name a heading, and
 *   links into this repository on GitHub (blob/main, tree/main; e.g. test files) name files
 *   that exist here;
 * - repository, bugs, homepage and author name one GitHub repository. With --release, the
 *   `OWNER` placeholder is refused as well.
 * Exits 1 with one line per problem.
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync } = require('node:child_process');

const ROOT = path.resolve(__dirname, '..');
const PLACEHOLDER_OWNER = 'OWNER';

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

/** GitHub's heading anchors, which npm's README page uses as well. */
function headingAnchors(markdown) {
	const anchors = new Set();
	const seen = new Map();
	let inFence = false;
	for (const line of markdown.split('\n')) {
		if (/^\s*```/.test(line)) inFence = !inFence;
		const heading = !inFence && /^#{1,6}\s+(.*)$/.exec(line);
		if (!heading) continue;
		const base = heading[1]
			.trim()
			.toLowerCase()
			.replace(/[^\p{L}\p{N}\s_-]/gu, '')
			.replace(/\s/g, '-');
		const count = seen.get(base) ?? 0;
		seen.set(base, count + 1);
		anchors.add(count ? `${base}-${count}` : base);
	}
	return anchors;
}

function checkReadmeLinks(files) {
	const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
	const shipped = new Set(files);
	const anchors = headingAnchors(readme);
	const withoutCode = readme.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
	const targets = [
		...[...withoutCode.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]),
		...[...withoutCode.matchAll(/^\s*\[[^\]]+\]:\s*(\S+)/gm)].map((m) => m[1]),
		...[...withoutCode.matchAll(/<(?:img|a)\s[^>]*(?:src|href)="([^"]+)"/g)].map((m) => m[1]),
	];
	for (const target of targets) {
		const inRepository =
			/^https:\/\/github\.com\/[^/]+\/n8n-nodes-botdojo\/(?:blob|tree)\/main\/([^#?]+)/.exec(
				target,
			);
		// A link into this repository (e.g. a test file the tarball does not ship) names a file here.
		if (inRepository && !fs.existsSync(path.join(ROOT, decodeURIComponent(inRepository[1]))))
			fail(`README links to ${target}, but the repository has no ${inRepository[1]}`);
		if (/^(https?:|mailto:)/i.test(target)) continue;
		if (target.startsWith('#')) {
			if (!anchors.has(decodeURIComponent(target.slice(1))))
				fail(`README links to ${target}, which names no heading`);
			continue;
		}
		const file = path.posix.normalize(target.split('#')[0]);
		if (!shipped.has(file))
			fail(
				`README links to ${target}, which is not in the tarball, so the link is dead on npm: ` +
					'use the repository URL (https://github.com/…/blob/main/…) or ship the file',
			);
	}
	return targets.length;
}

/** owner/name of a GitHub URL, or undefined. */
function githubRepo(url) {
	const match = /github\.com[/:]([^/]+)\/([^/#?]+?)(?:\.git)?(?:[/#?]|$)/.exec(url ?? '');
	return match ? `${match[1]}/${match[2]}` : undefined;
}

function checkRepositoryFields(pkg, { release }) {
	const repo = githubRepo(
		typeof pkg.repository === 'string' ? pkg.repository : pkg.repository?.url,
	);
	if (!repo) return fail('package.json repository is missing or not a GitHub URL');
	const expectations = {
		'bugs.url': githubRepo(pkg.bugs?.url),
		homepage: githubRepo(pkg.homepage),
	};
	for (const [field, value] of Object.entries(expectations))
		if (value !== repo)
			fail(`package.json ${field} names ${value ?? 'no repository'}, not ${repo}`);
	const owner = repo.split('/')[0];
	if (pkg.author?.name !== owner && !String(pkg.author?.url ?? '').endsWith(`/${owner}`))
		fail(
			`package.json author (${JSON.stringify(pkg.author)}) does not match the repository owner ${owner}`,
		);
	const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
	for (const [, other] of readme.matchAll(
		/https:\/\/github\.com\/([^/\s)]+\/n8n-nodes-botdojo)\b/g,
	))
		if (other !== repo) fail(`README links to github.com/${other}, but package.json names ${repo}`);
	if (release && owner === PLACEHOLDER_OWNER)
		fail(
			`package.json still names the placeholder ${repo}: set repository, bugs, homepage and author ` +
				'(and the README links) to the real repository before releasing',
		);
	return repo;
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
	const links = checkReadmeLinks(files);
	const repo = checkRepositoryFields(pkg, { release });
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
			`${links} README links resolve on npm; repository ${repo}.`,
	);
}

main();
