'use strict';
/**
 * Runs the cached n8n under Node 24: the server (`n8n start`) and one-shot CLI commands
 * (`import:*`, `publish:workflow`, `execute`), all on one user folder.
 */
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const { spawn } = require('node:child_process');

const { NODE24, N8N_BIN, lastLines } = require('./install-n8n');

/** A port that was free a moment ago, on 127.0.0.1. */
function freePort() {
	return new Promise((resolve, reject) => {
		const server = net.createServer();
		server.unref();
		server.on('error', reject);
		server.listen(0, '127.0.0.1', () => {
			const { port } = server.address();
			server.close(() => resolve(port));
		});
	});
}

/**
 * n8n copies its whole editor (≈1000 JS files) into `<user folder>/.cache/n8n/public` at every
 * start. Inside the repo, `eslint .` (npm run lint) would then parse them all: minutes instead of
 * seconds. So `.cache` is a symlink to a folder in the system's temp dir, which eslint's walk
 * does not follow; n8n rebuilds its content at each start anyway. That folder is made private
 * with an unpredictable name (mkdtemp: mode 0700), and kept only while it is still a directory of
 * ours that no one else may write: n8n runs the editor code it finds there.
 */
function linkStaticCache(userFolder) {
	const link = path.join(userFolder, '.cache');
	const current = fs.lstatSync(link, { throwIfNoEntry: false });
	if (current?.isSymbolicLink()) {
		const target = fs.readlinkSync(link);
		const stat = fs.lstatSync(target, { throwIfNoEntry: false });
		const ours = !process.getuid || stat?.uid === process.getuid();
		if (stat?.isDirectory() && ours && (stat.mode & 0o077) === 0) return target;
	}
	if (current) fs.rmSync(link, { recursive: true, force: true });
	const target = fs.mkdtempSync(path.join(os.tmpdir(), 'n8n-nodes-botdojo-cache-'));
	fs.mkdirSync(userFolder, { recursive: true });
	fs.symlinkSync(target, link, 'dir');
	return target;
}

/** Removes a throw-away user folder and n8n's copy of its editor that `.cache` links to. */
function removeUserFolder(userFolder) {
	const cache = path.join(userFolder, '.cache');
	if (fs.existsSync(cache)) fs.rmSync(fs.realpathSync(cache), { recursive: true, force: true });
	fs.rmSync(userFolder, { recursive: true, force: true });
}

/** Environment of every n8n process: offline, quiet, on 127.0.0.1, with the given user folder. */
function n8nEnv({ userFolder, port, brokerPort, extra = {} }) {
	const env = { ...process.env };
	// npm's and jest's variables would leak into n8n's own npm calls and its task runner.
	for (const key of Object.keys(env))
		if (/^(npm_|NODE_OPTIONS$|INIT_CWD$)/.test(key)) delete env[key];
	return {
		...env,
		N8N_USER_FOLDER: userFolder,
		N8N_PORT: String(port),
		N8N_LISTEN_ADDRESS: '127.0.0.1',
		N8N_HOST: '127.0.0.1',
		N8N_PROTOCOL: 'http',
		N8N_EDITOR_BASE_URL: `http://127.0.0.1:${port}/`,
		WEBHOOK_URL: `http://127.0.0.1:${port}/`,
		N8N_RUNNERS_BROKER_PORT: String(brokerPort),
		N8N_SECURE_COOKIE: 'false',
		N8N_DIAGNOSTICS_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
		N8N_PERSONALIZATION_ENABLED: 'false',
		N8N_TEMPLATES_ENABLED: 'false',
		N8N_HIRING_BANNER_ENABLED: 'false',
		N8N_COMMUNITY_PACKAGES_REINSTALL_MISSING: 'false',
		N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'true',
		GENERIC_TIMEZONE: 'UTC',
		TZ: 'UTC',
		...extra,
	};
}

/**
 * Runs one n8n CLI command to its end. Resolves with its stdout; rejects with the command, its
 * exit code and the end of its output.
 */
function runN8nCli(args, options) {
	linkStaticCache(options.userFolder);
	return new Promise((resolve, reject) => {
		const child = spawn(NODE24, [N8N_BIN, ...args], {
			env: n8nEnv(options),
			stdio: ['ignore', 'pipe', 'pipe'],
		});
		const stdout = [];
		const stderr = [];
		child.stdout.on('data', (chunk) => stdout.push(chunk));
		child.stderr.on('data', (chunk) => stderr.push(chunk));
		child.on('error', reject);
		child.on('exit', (code, signal) => {
			const out = Buffer.concat(stdout).toString();
			const err = Buffer.concat(stderr).toString();
			if (code === 0) return resolve(out);
			const tail = (out + '\n' + err).trim().split('\n').slice(-25).join('\n');
			reject(
				new Error(`n8n ${args.join(' ')} failed (${signal || `exit code ${code}`}):\n${tail}`),
			);
		});
	});
}

async function waitForHttp(url, { timeoutMs, isAlive, ready = (response) => response.ok }) {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		if (!isAlive()) return false;
		try {
			const response = await fetch(url, { signal: AbortSignal.timeout(5000) });
			if (ready(response)) return true;
		} catch {
			// not listening yet
		}
		if (Date.now() > deadline)
			throw new Error(`n8n did not answer on ${url} within ${timeoutMs / 1000}s`);
		await new Promise((resolve) => setTimeout(resolve, 500));
	}
}

/** Process groups of the n8n servers started here, killed if this process exits first. */
const running = new Set();
process.on('exit', () => {
	for (const pid of running) {
		try {
			process.kill(-pid, 'SIGKILL');
		} catch {
			// already gone
		}
	}
});

/**
 * Starts `n8n start` (or `command`, e.g. `worker`, whose health server then listens on `port`)
 * and waits until the REST API answers. The server's output goes to
 * `logFile`. Returns { url, child, stop(), exited }; stop() sends SIGTERM, then SIGKILL after 20 s.
 * `onSpawn(stop, child)` is called as soon as the process runs.
 */
async function startN8n({
	userFolder,
	port,
	brokerPort,
	logFile,
	extraEnv,
	timeoutMs = 240_000,
	onSpawn = () => undefined,
	command = ['start'],
}) {
	fs.mkdirSync(path.dirname(logFile), { recursive: true });
	linkStaticCache(userFolder);
	const out = fs.openSync(logFile, 'a');
	const child = spawn(NODE24, [N8N_BIN, ...command], {
		env: n8nEnv({ userFolder, port, brokerPort, extra: extraEnv }),
		stdio: ['ignore', out, out],
		// Own process group: Ctrl-C reaches us only, and stop() decides how n8n ends.
		detached: true,
	});
	fs.closeSync(out);
	running.add(child.pid);
	let exited = null;
	const exit = new Promise((resolve) =>
		child.on('exit', (code, signal) => {
			exited = { code, signal };
			resolve(exited);
		}),
	);
	const url = `http://127.0.0.1:${port}`;
	const stop = async () => {
		if (exited) return exited;
		try {
			process.kill(child.pid, 'SIGTERM');
		} catch {
			// already gone
		}
		const timer = setTimeout(() => {
			try {
				process.kill(-child.pid, 'SIGKILL');
			} catch {
				// already gone
			}
		}, 20_000);
		const result = await exit;
		clearTimeout(timer);
		// The task runner is n8n's child; make sure nothing of the group outlives n8n.
		try {
			process.kill(-child.pid, 'SIGKILL');
		} catch {
			// group already empty
		}
		running.delete(child.pid);
		return result;
	};
	// Lets the caller stop n8n on Ctrl-C while it is still starting.
	onSpawn(stop, child);
	try {
		// /healthz/readiness turns 200 once every route is registered (the settings route answers
		// earlier). n8n 1.x turns it 200 before its REST routes exist: the main process waits until
		// GET /rest/login answers (401 when signed out) instead of 404. A worker has no REST API.
		const isAlive = () => !exited;
		const up =
			(await waitForHttp(`${url}/healthz/readiness`, { timeoutMs, isAlive })) &&
			(command[0] !== 'start' ||
				(await waitForHttp(`${url}/rest/login`, {
					timeoutMs,
					isAlive,
					ready: (response) => response.status !== 404,
				})));
		if (!up) throw new Error(`n8n exited during start-up (${JSON.stringify(exited)})`);
	} catch (error) {
		await stop();
		throw new Error(`${error.message}\nLast lines of ${logFile}:\n${lastLines(logFile, 30)}`);
	}
	return { url, child, stop, exited: exit };
}

/**
 * Runs a workflow with `n8n execute --id` (it starts at its Manual Trigger) next to the server
 * running on `userFolder`/`port`, and returns { run, outputs: { nodeName: [items of its last run] } }.
 */
async function executeWorkflow({ userFolder, port }, workflowId) {
	const out = await runN8nCli(['execute', `--id=${workflowId}`, '--rawOutput'], {
		userFolder,
		port,
		// The server's task broker holds its port; the CLI gets its own.
		brokerPort: await freePort(),
	});
	// The run is printed as indented JSON (from a line "{" to a line "}"); log lines may surround it.
	const lines = out.split('\n');
	const start = lines.indexOf('{');
	const end = lines.indexOf('}', start);
	if (start < 0 || end < 0)
		throw new Error(`n8n execute printed no run data:\n${out.slice(-2000)}`);
	const run = JSON.parse(lines.slice(start, end + 1).join('\n'));
	const outputs = {};
	for (const [node, runs] of Object.entries(run.data.resultData.runData))
		outputs[node] = runs[runs.length - 1].data?.main?.[0] ?? [];
	return { run, outputs };
}

module.exports = {
	executeWorkflow,
	freePort,
	linkStaticCache,
	n8nEnv,
	removeUserFolder,
	runN8nCli,
	startN8n,
};
