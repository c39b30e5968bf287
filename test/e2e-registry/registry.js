'use strict';
/**
 * A local npm registry for the registry-install check: verdaccio (pinned in verdaccio-install/,
 * installed once into the git-ignored `.n8n-local/verdaccio-<version>/`), started on 127.0.0.1
 * with its storage in a folder the caller owns and no uplink, so it serves only what is
 * published to it.
 */
const fs = require('node:fs');
const path = require('node:path');
const { execFileSync, spawn } = require('node:child_process');

const { LOCAL_DIR, lastLines } = require('../../scripts/lib/install-n8n');

const MANIFEST_DIR = path.join(__dirname, 'verdaccio-install');
const VERSION = require(path.join(MANIFEST_DIR, 'package.json')).dependencies.verdaccio;
const INSTALL_DIR = path.join(LOCAL_DIR, `verdaccio-${VERSION}`);
const MARKER = path.join(INSTALL_DIR, '.install-complete');
const BIN = path.join(INSTALL_DIR, 'node_modules', 'verdaccio', 'bin', 'verdaccio');

/** Installs the pinned verdaccio once (about 30 s); later calls only check the marker. */
function ensureVerdaccio() {
	if (fs.existsSync(MARKER)) return;
	fs.rmSync(INSTALL_DIR, { recursive: true, force: true });
	fs.mkdirSync(INSTALL_DIR, { recursive: true });
	for (const file of ['package.json', 'package-lock.json'])
		fs.copyFileSync(path.join(MANIFEST_DIR, file), path.join(INSTALL_DIR, file));
	execFileSync('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund'], {
		cwd: INSTALL_DIR,
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	fs.writeFileSync(MARKER, new Date().toISOString());
}

const CONFIG = `storage: ./storage
auth:
  htpasswd:
    file: ./htpasswd
    max_users: 1
uplinks: {}
packages:
  '**':
    access: $all
    publish: $authenticated
    unpublish: $authenticated
web:
  enable: false
log: { type: file, path: ./verdaccio.log, level: warn }
`;

/**
 * Starts verdaccio on `port` with its config and storage in `dir`, and registers the one user
 * that may publish. Returns { url, publish(folderOrTarball), stop() }.
 */
async function startRegistry({ dir, port }) {
	fs.mkdirSync(dir, { recursive: true });
	const configFile = path.join(dir, 'config.yaml');
	fs.writeFileSync(configFile, CONFIG);
	const logFile = path.join(dir, 'verdaccio.out');
	const out = fs.openSync(logFile, 'a');
	const child = spawn(
		process.execPath,
		[BIN, '--config', configFile, '--listen', `127.0.0.1:${port}`],
		{
			cwd: dir,
			stdio: ['ignore', out, out],
			detached: true,
		},
	);
	fs.closeSync(out);
	let exited = false;
	const exit = new Promise((resolve) =>
		child.on('exit', () => {
			exited = true;
			resolve();
		}),
	);
	const stop = async () => {
		if (exited) return;
		try {
			process.kill(-child.pid, 'SIGTERM');
		} catch {
			// already gone
		}
		await exit;
	};
	const url = `http://127.0.0.1:${port}`;
	try {
		const deadline = Date.now() + 60_000;
		for (;;) {
			if (exited) throw new Error('verdaccio exited during start-up');
			const ping = await fetch(`${url}/-/ping`).catch(() => undefined);
			if (ping?.ok) break;
			if (Date.now() > deadline) throw new Error(`verdaccio did not answer on ${url} in 60 s`);
			await new Promise((resolve) => setTimeout(resolve, 300));
		}
		const user = await fetch(`${url}/-/user/org.couchdb.user:e2e`, {
			method: 'PUT',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ name: 'e2e', password: 'e2e-registry-only' }),
		});
		const { token } = await user.json();
		if (!token) throw new Error(`verdaccio registered no user (status ${user.status})`);
		const publish = (what) =>
			execFileSync(
				'npm',
				[
					'publish',
					what,
					`--registry=${url}`,
					`--//127.0.0.1:${port}/:_authToken=${token}`,
					'--ignore-scripts',
					'--provenance=false',
				],
				{ cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
			);
		return { url, publish, stop };
	} catch (error) {
		await stop();
		throw new Error(`${error.message}\nLast lines of ${logFile}:\n${lastLines(logFile, 20)}`);
	}
}

module.exports = { ensureVerdaccio, startRegistry, VERDACCIO_VERSION: VERSION };
