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

/**
 * `node scripts/start.js` in dir without the real-BotDojo variables; resolves { code, stdout,
 * stderr }. Killed if it gets as far as building: a check that fails must not install n8n.
 */
function startUntilBuild(dir, env) {
	return new Promise((resolve) => {
		const child = spawn(process.execPath, ['scripts/start.js'], {
			cwd: dir,
			env: {
				...process.env,
				BOTDOJO_API_KEY: '',
				BOTDOJO_ACCOUNT_ID: '',
				BOTDOJO_PROJECT_ID: '',
				...env,
			},
		});
		let stdout = '';
		let stderr = '';
		child.stdout.on('data', (chunk) => {
			stdout += chunk;
			if (stdout.includes('Building')) child.kill('SIGKILL');
		});
		child.stderr.on('data', (chunk) => (stderr += chunk));
		child.on('close', (code) => resolve({ code, stdout, stderr }));
	});
}

/**
 * Stands for a running `npm start` of the clone in dir: a live process whose command line runs
 * scripts/start.js, named in the clone's claim file. Returns { pid, alive(), claim(), stop() }.
 */
function holdClone(dir) {
	const holder = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)', 'scripts/start.js']);
	const userFolder = path.join(dir, '.n8n-local', 'user');
	fs.mkdirSync(userFolder, { recursive: true });
	const claimFile = path.join(userFolder, 'npm-start.pid');
	fs.writeFileSync(claimFile, String(holder.pid));
	return {
		pid: holder.pid,
		alive: () => holder.exitCode === null && holder.signalCode === null,
		claim: () => fs.readFileSync(claimFile, 'utf8'),
		stop: () => holder.kill(),
	};
}

/** A fresh user folder in the temp dir, and a folder others may write (mode 0777). */
function tempFolder(prefix, mode) {
	const folder = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
	if (mode) fs.chmodSync(folder, mode);
	return folder;
}

/**
 * The folder the editor cache of userFolder had before: a name anyone could compute
 * (tmp/n8n-nodes-botdojo-cache/<sha1 of the folder>), made first, writable by all.
 */
function plantPredictableCache(userFolder) {
	const hash = require('node:crypto').createHash('sha1').update(userFolder).digest('hex');
	const planted = path.join(os.tmpdir(), 'n8n-nodes-botdojo-cache', hash.slice(0, 12));
	fs.mkdirSync(planted, { recursive: true });
	fs.chmodSync(planted, 0o777);
	return planted;
}

/** Whether a path is a directory of this user that no one else may read or write (0700). */
function isPrivateFolderOfOurs(folder) {
	const stat = fs.lstatSync(folder);
	return stat.isDirectory() && stat.uid === process.getuid() && (stat.mode & 0o777) === 0o700;
}

/** Points userFolder's `.cache` link at folder, as an earlier start or someone else may have. */
function linkCacheTo(userFolder, folder) {
	fs.rmSync(path.join(userFolder, '.cache'), { force: true });
	fs.symlinkSync(folder, path.join(userFolder, '.cache'), 'dir');
}

function removeFolders(...folders) {
	for (const folder of folders) fs.rmSync(folder, { recursive: true, force: true });
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
	startUntilBuild,
	holdClone,
	tempFolder,
	plantPredictableCache,
	isPrivateFolderOfOurs,
	linkCacheTo,
	removeFolders,
};
