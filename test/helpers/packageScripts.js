'use strict';
/**
 * Runs the package's own scripts as a user or the release workflow would (a child process, in
 * this repository or in a copy of it), for the tests of ports, links and the release guard.
 */
const { execFileSync, spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '../..');

/** A listening socket on a port the system picked: that port is then busy. */
function occupyPort() {
	return new Promise((resolve) => {
		const server = net.createServer();
		server.listen(0, '127.0.0.1', () =>
			resolve({
				port: server.address().port,
				close: () => new Promise((done) => server.close(done)),
			}),
		);
	});
}

async function freePort() {
	const busy = await occupyPort();
	await busy.close();
	return busy.port;
}

/** `node <script>` in root with extra environment; resolves { code, stdout, stderr }. */
function runNode(script, env = {}, cwd = ROOT) {
	return new Promise((resolve) => {
		const child = spawn(process.execPath, [script], { cwd, env: { ...process.env, ...env } });
		let stdout = '';
		let stderr = '';
		child.stdout.on('data', (chunk) => (stdout += chunk));
		child.stderr.on('data', (chunk) => (stderr += chunk));
		child.on('close', (code) => resolve({ code, stdout, stderr }));
	});
}

/** A bash script as a GitHub Actions step runs it (bash -e); { code, out }. */
function runBash(script, cwd, env = {}) {
	const result = spawnSync('bash', ['-e', '-c', script], {
		cwd,
		encoding: 'utf8',
		timeout: 60_000,
		env: { ...process.env, ...env },
	});
	return { code: result.status, out: `${result.stdout}${result.stderr}` };
}

/** `node scripts/check-tarball.js [args]` in dir; { code, out }. */
function checkTarball(dir, ...args) {
	const result = spawnSync(process.execPath, ['scripts/check-tarball.js', ...args], {
		cwd: dir,
		encoding: 'utf8',
	});
	return { code: result.status, out: `${result.stdout}${result.stderr}` };
}

/** A temporary copy of the repository's files and dist/, node_modules linked for the build tools. */
function copyRepository() {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'botdojo-release-'));
	const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard', '-z'], {
		cwd: ROOT,
		encoding: 'utf8',
	})
		.split('\0')
		.filter(
			(file) => file && fs.lstatSync(path.join(ROOT, file), { throwIfNoEntry: false })?.isFile(),
		);
	for (const file of files) {
		fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
		fs.copyFileSync(path.join(ROOT, file), path.join(dir, file));
	}
	fs.cpSync(path.join(ROOT, 'dist'), path.join(dir, 'dist'), { recursive: true });
	fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
	return dir;
}

function removeCopy(dir) {
	fs.rmSync(dir, { recursive: true, force: true });
}

function readFile(dir, file) {
	return fs.readFileSync(path.join(dir, file), 'utf8');
}

function editFile(dir, file, change) {
	fs.writeFileSync(path.join(dir, file), change(readFile(dir, file)));
}

/** The codex step of `npm run build` (gulp build:icons), which links the codex from package.json. */
function buildCodex(dir) {
	execFileSync(process.execPath, [path.join(dir, 'node_modules/gulp/bin/gulp.js'), 'build:icons'], {
		cwd: dir,
		stdio: 'ignore',
	});
}

/**
 * The codex files of the package as `npm start` and the e2e suites pack and install it
 * (scripts/lib/community-package.js buildAndPack): { [node folder]: codex }.
 */
function codexOfLocalPack() {
	const { buildAndPack } = require('../../scripts/lib/community-package');
	const packed = buildAndPack();
	try {
		const listing = execFileSync('tar', ['-tzf', packed.tarball], { encoding: 'utf8' });
		const files = listing.split('\n').filter((file) => file.endsWith('.node.json'));
		return Object.fromEntries(
			files.map((file) => [
				path.basename(path.dirname(file)),
				JSON.parse(execFileSync('tar', ['-xzOf', packed.tarball, file], { encoding: 'utf8' })),
			]),
		);
	} finally {
		packed.cleanup();
	}
}

module.exports = {
	ROOT,
	codexOfLocalPack,
	occupyPort,
	freePort,
	runNode,
	runBash,
	checkTarball,
	copyRepository,
	removeCopy,
	readFile,
	editFile,
	buildCodex,
};
