'use strict';
/**
 * Redis and PostgreSQL from Debian's packages, started as our own processes on 127.0.0.1 with
 * their data under `.queue-local/` (git-ignored): what n8n's queue mode needs. PostgreSQL refuses
 * to run as root, so as root its commands run as the `postgres` user (data dir owned by it).
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn, spawnSync } = require('node:child_process');

const { freePort } = require('./n8n-process');

const ROOT = path.resolve(__dirname, '..', '..');
const QUEUE_DIR = path.join(ROOT, '.queue-local');
const IS_ROOT = process.getuid?.() === 0;

function pgBin(name) {
	const base = '/usr/lib/postgresql';
	const versions = fs.existsSync(base) ? fs.readdirSync(base).sort((a, b) => b - a) : [];
	for (const version of versions) {
		const file = path.join(base, version, 'bin', name);
		if (fs.existsSync(file)) return file;
	}
	throw new Error(
		`PostgreSQL's ${name} was not found under ${base}: apt-get install -y postgresql redis-server`,
	);
}

/** Runs a PostgreSQL command, as the `postgres` user when we are root. */
function asPostgres(command, args) {
	return IS_ROOT ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];
}

function runOrThrow(command, args) {
	const result = spawnSync(command, args, { encoding: 'utf8' });
	if (result.status !== 0) {
		throw new Error(`${command} ${args.join(' ')} failed:\n${result.stdout}\n${result.stderr}`);
	}
	return result.stdout;
}

function startProcess(command, args, logFile) {
	const out = fs.openSync(logFile, 'a');
	const child = spawn(command, args, { stdio: ['ignore', out, out], detached: true });
	fs.closeSync(out);
	let exited = false;
	child.on('exit', () => (exited = true));
	return {
		child,
		isAlive: () => !exited,
		stop: () =>
			new Promise((resolve) => {
				if (exited) return resolve();
				child.once('exit', resolve);
				try {
					process.kill(child.pid, 'SIGTERM');
				} catch {
					resolve();
				}
			}),
	};
}

async function waitFor(what, check, isAlive, logFile, timeoutMs = 60_000) {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		if (check()) return;
		if (!isAlive() || Date.now() > deadline) {
			const log = fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8').slice(-2000) : '';
			throw new Error(`${what} did not start:\n${log}`);
		}
		await new Promise((resolve) => setTimeout(resolve, 300));
	}
}

async function startRedis(dir) {
	const port = await freePort();
	const logFile = path.join(dir, 'redis.log');
	const args = ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', ''];
	const redis = startProcess('redis-server', [...args, '--appendonly', 'no'], logFile);
	const ping = () =>
		spawnSync('redis-cli', ['-h', '127.0.0.1', '-p', String(port), 'ping'], {
			encoding: 'utf8',
		}).stdout?.trim() === 'PONG';
	await waitFor('Redis', ping, redis.isAlive, logFile);
	return { port, stop: redis.stop };
}

/**
 * Where PostgreSQL's data can live: under `dir` when the `postgres` user can reach it, otherwise
 * (a checkout inside a mode-0700 folder such as `mktemp -d`'s) a fresh folder under the system
 * temp dir, removed again on stop.
 */
function postgresHome(dir) {
	if (!IS_ROOT || spawnSync('runuser', ['-u', 'postgres', '--', 'test', '-x', dir]).status === 0) {
		return { home: dir, remove: () => {} };
	}
	const home = fs.mkdtempSync(path.join(os.tmpdir(), 'botdojo-queue-pg-'));
	fs.chmodSync(home, 0o755);
	return { home, remove: () => fs.rmSync(home, { recursive: true, force: true }) };
}

async function startPostgres(dir) {
	const port = await freePort();
	const { home, remove } = postgresHome(dir);
	const dataDir = path.join(home, 'pg');
	const logFile = path.join(home, 'postgres.log');
	fs.mkdirSync(dataDir, { recursive: true });
	fs.writeFileSync(logFile, '');
	if (IS_ROOT) runOrThrow('chown', ['-R', 'postgres:postgres', dataDir, logFile]);
	fs.chmodSync(dataDir, 0o700);
	runOrThrow(...asPostgres(pgBin('initdb'), ['-D', dataDir, '-A', 'trust', '-U', 'postgres']));
	const server = startProcess(
		...asPostgres(pgBin('postgres'), [
			'-D',
			dataDir,
			'-p',
			String(port),
			'-k',
			dataDir,
			'-c',
			'listen_addresses=127.0.0.1',
		]),
		logFile,
	);
	const ready = () =>
		spawnSync(pgBin('pg_isready'), ['-h', '127.0.0.1', '-p', String(port)]).status === 0;
	await waitFor('PostgreSQL', ready, server.isAlive, logFile);
	const psql = (sql) =>
		runOrThrow(pgBin('psql'), [
			'-h',
			'127.0.0.1',
			'-p',
			String(port),
			'-U',
			'postgres',
			'-v',
			'ON_ERROR_STOP=1',
			'-c',
			sql,
		]);
	psql('CREATE DATABASE n8n');
	/** One query on n8n's database; its rows as `|`-separated lines. */
	const query = (sql) =>
		runOrThrow(pgBin('psql'), [
			...['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-d', 'n8n'],
			...['-v', 'ON_ERROR_STOP=1', '-tA', '-c', sql],
		]).trim();
	const stop = async (keep = false) => {
		await server.stop();
		if (!keep) remove();
	};
	return { port, database: 'n8n', user: 'postgres', psql, query, stop };
}

/** Starts Redis and PostgreSQL in a fresh folder under `.queue-local/`. */
async function startQueueServices(log = console.log) {
	fs.mkdirSync(QUEUE_DIR, { recursive: true });
	const dir = fs.mkdtempSync(path.join(QUEUE_DIR, 'services-'));
	fs.chmodSync(dir, 0o755);
	const redis = await startRedis(dir);
	log(`Redis on 127.0.0.1:${redis.port}`);
	const postgres = await startPostgres(dir);
	log(`PostgreSQL on 127.0.0.1:${postgres.port}`);
	return {
		dir,
		redis,
		postgres,
		stop: async (keep = false) => {
			await Promise.all([redis.stop(), postgres.stop(keep)]);
			if (!keep) fs.rmSync(dir, { recursive: true, force: true });
		},
	};
}

module.exports = { QUEUE_DIR, startQueueServices };
