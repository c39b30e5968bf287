'use strict';
/**
 * Puts our package into n8n the way a user gets it: a clean build packed with `npm pack`, then
 * unpacked into `<user folder>/.n8n/nodes/node_modules/n8n-nodes-botdojo`, so that node types
 * are `n8n-nodes-botdojo.<node>`.
 *
 * The build goes to a fresh folder in the system's temp dir, not to dist/: `tsc` never deletes
 * output whose source is gone (a stale dist/x.js shadows a new dist/x/index.js), and other
 * people's tests read dist/ while this runs.
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync } = require('node:child_process');

const { ROOT } = require('./install-n8n');
const { linkCodexToRepository, readRepository } = require('./repository');

const PACKAGE = require(path.join(ROOT, 'package.json'));

function run(command, args, cwd) {
	try {
		return execFileSync(command, args, {
			cwd,
			encoding: 'utf8',
			stdio: ['ignore', 'pipe', 'pipe'],
		});
	} catch (error) {
		throw new Error(
			`${command} ${args.join(' ')} failed in ${cwd}:\n${(error.stdout || '') + (error.stderr || '')}`,
		);
	}
}

/** Files under `dir` (relative to ROOT) whose names pass `keep`. */
function filesUnder(dir, keep) {
	const found = [];
	const walk = (relative) => {
		for (const entry of fs.readdirSync(path.join(ROOT, relative), { withFileTypes: true })) {
			const child = path.join(relative, entry.name);
			if (entry.isDirectory()) walk(child);
			else if (keep(entry.name)) found.push(child);
		}
	};
	walk(dir);
	return found;
}

/**
 * Builds the package from its sources into a temporary folder, as `npm run build` does
 * (tsc, then the icons and codex files the gulp task copies), and packs it.
 * Returns { tarball, files, cleanup() }.
 */
function buildAndPack() {
	const stage = fs.mkdtempSync(path.join(os.tmpdir(), 'botdojo-pack-'));
	try {
		const dist = path.join(stage, 'dist');
		run(
			process.execPath,
			[
				require.resolve('typescript/bin/tsc', { paths: [ROOT] }),
				'-p',
				'tsconfig.build.json',
				'--outDir',
				dist,
			],
			ROOT,
		);
		const assets = [
			...filesUnder('nodes', (name) => /\.(png|svg)$/.test(name) || name.endsWith('.node.json')),
			...filesUnder('credentials', (name) => /\.(png|svg)$/.test(name)),
		];
		const repository = readRepository(ROOT);
		for (const file of assets) {
			fs.mkdirSync(path.dirname(path.join(dist, file)), { recursive: true });
			if (file.endsWith('.node.json'))
				fs.writeFileSync(
					path.join(dist, file),
					linkCodexToRepository(fs.readFileSync(path.join(ROOT, file), 'utf8'), repository),
				);
			else fs.copyFileSync(path.join(ROOT, file), path.join(dist, file));
		}
		for (const file of ['package.json', 'README.md', 'LICENSE', 'LICENSE.md'])
			if (fs.existsSync(path.join(ROOT, file)))
				fs.copyFileSync(path.join(ROOT, file), path.join(stage, file));
		for (const file of PACKAGE.n8n.nodes.concat(PACKAGE.n8n.credentials))
			if (!fs.existsSync(path.join(stage, file)))
				throw new Error(`the build made no ${file} (listed in package.json n8n)`);
		const [packed] = JSON.parse(run('npm', ['pack', '--json', '--ignore-scripts'], stage));
		return {
			tarball: path.join(stage, packed.filename),
			files: packed.files.length,
			cleanup: () => fs.rmSync(stage, { recursive: true, force: true }),
		};
	} catch (error) {
		fs.rmSync(stage, { recursive: true, force: true });
		throw error;
	}
}

/** Unpacks a packed package into n8n's community package folder of `userFolder`. */
function installPackageInto(userFolder, packed) {
	const nodesDir = path.join(userFolder, '.n8n', 'nodes');
	const target = path.join(nodesDir, 'node_modules', PACKAGE.name);
	fs.rmSync(target, { recursive: true, force: true });
	fs.mkdirSync(target, { recursive: true });
	run('tar', ['-xzf', packed.tarball, '-C', target, '--strip-components=1'], ROOT);
	// The manifest n8n keeps for the packages it installed itself.
	const manifestFile = path.join(nodesDir, 'package.json');
	const manifest = fs.existsSync(manifestFile)
		? JSON.parse(fs.readFileSync(manifestFile, 'utf8'))
		: { name: 'installed-nodes', private: true };
	manifest.dependencies = { ...manifest.dependencies, [PACKAGE.name]: PACKAGE.version };
	fs.writeFileSync(manifestFile, JSON.stringify(manifest, null, 2));
	return { target, files: packed.files };
}

/** Node type names as n8n lists them, read from the package's `n8n.nodes` list. */
function nodeTypeNames() {
	return PACKAGE.n8n.nodes.map((file) => {
		const base = path.basename(file, '.node.js');
		return `${PACKAGE.name}.${base.charAt(0).toLowerCase()}${base.slice(1)}`;
	});
}

module.exports = { PACKAGE, buildAndPack, installPackageInto, nodeTypeNames };
