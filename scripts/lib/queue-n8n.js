'use strict';
/**
 * n8n 2.40.7 in queue mode: one main, `workers` workers and `webhooks` webhook processes sharing
 * one PostgreSQL database, one Redis and one encryption key; each process has its own user folder
 * with the packed package in `.n8n/nodes`. Workers answer health checks on 127.0.0.1 only. With a
 * webhook process, production webhook and chat calls go to it alone (the main serves none).
 */
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const { freePort, runN8nCli, startN8n } = require('./n8n-process');
const { installPackageInto } = require('./community-package');
const { QUEUE_DIR } = require('./queue-services');

function queueEnv(services, encryptionKey) {
	return {
		EXECUTIONS_MODE: 'queue',
		QUEUE_BULL_REDIS_HOST: '127.0.0.1',
		QUEUE_BULL_REDIS_PORT: String(services.redis.port),
		DB_TYPE: 'postgresdb',
		DB_POSTGRESDB_HOST: '127.0.0.1',
		DB_POSTGRESDB_PORT: String(services.postgres.port),
		DB_POSTGRESDB_DATABASE: services.postgres.database,
		DB_POSTGRESDB_USER: services.postgres.user,
		DB_POSTGRESDB_PASSWORD: '',
		N8N_ENCRYPTION_KEY: encryptionKey,
		QUEUE_HEALTH_CHECK_ACTIVE: 'true',
		N8N_WORKER_SERVER_ADDRESS: '127.0.0.1',
		OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS: 'true',
	};
}

async function importJson(cli, kind, value) {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'botdojo-queue-import-'));
	try {
		const file = path.join(dir, `${kind}.json`);
		fs.writeFileSync(file, JSON.stringify(value), { mode: 0o600 });
		await runN8nCli([`import:${kind}`, `--input=${file}`], cli);
	} finally {
		fs.rmSync(dir, { recursive: true, force: true });
	}
}

/**
 * Imports the credentials and workflows, then starts the main, the workers and the webhook
 * processes (`extraEnv` goes to every process, e.g. a shorter stalled-job detection for a test;
 * `workerEnv` to the workers only). Returns { url, webhookUrl, folder, main, workers, webhooks,
 * restartMain(), stop() }.
 */
async function startQueueN8n({
	services,
	packed,
	credentials,
	workflows,
	workers = 2,
	webhooks = 1,
	extraEnv = {},
	workerEnv = {},
	log,
}) {
	const folder = fs.mkdtempSync(path.join(QUEUE_DIR, 'n8n-'));
	const extra = { ...queueEnv(services, crypto.randomBytes(24).toString('hex')), ...extraEnv };
	const processes = [];
	const stop = async () => {
		for (const started of processes.reverse()) await started.stop();
	};
	const prepare = async (name) => {
		const userFolder = path.join(folder, name);
		installPackageInto(userFolder, packed);
		return { userFolder, port: await freePort(), brokerPort: await freePort() };
	};
	try {
		const main = await prepare('main');
		const hooks = await Promise.all(
			Array.from({ length: webhooks }, (_, index) => prepare(`webhook-${index + 1}`)),
		);
		// The editor shows production URLs at the webhook process; the main serves none of them.
		const mainEnv = hooks.length
			? {
					...extra,
					WEBHOOK_URL: `http://127.0.0.1:${hooks[0].port}/`,
					N8N_DISABLE_PRODUCTION_MAIN_PROCESS: 'true',
				}
			: extra;
		const cli = { ...main, extra: mainEnv };
		if (credentials.length) await importJson(cli, 'credentials', credentials);
		if (workflows.length) await importJson(cli, 'workflow', workflows);
		const mainLog = path.join(folder, 'main.log');
		const startMain = () => startN8n({ ...main, logFile: mainLog, extraEnv: mainEnv });
		const state = { main: await startMain() };
		processes.push({ stop: () => state.main.stop() });
		log(`n8n main on ${state.main.url} (log: ${mainLog})`);
		const startWorkers = Promise.all(
			Array.from({ length: workers }, async (_, index) => {
				const worker = await prepare(`worker-${index + 1}`);
				const logFile = path.join(folder, `worker-${index + 1}.log`);
				// { url, child, stop, exited } of its current process; restart() starts a new one
				// (after a test killed it) with the same folder, port and log.
				const record = { logFile };
				const start = async () => {
					const workerProcess = await startN8n({
						...worker,
						logFile,
						command: ['worker', '--concurrency=10'],
						extraEnv: { ...extra, ...workerEnv, QUEUE_HEALTH_CHECK_PORT: String(worker.port) },
						onSpawn: (stopWorker) => processes.push({ stop: stopWorker }),
					});
					log(`n8n worker ${index + 1} ready (log: ${logFile})`);
					return Object.assign(record, workerProcess);
				};
				record.restart = start;
				return await start();
			}),
		);
		const startWebhooks = Promise.all(
			hooks.map(async (hook, index) => {
				const logFile = path.join(folder, `webhook-${index + 1}.log`);
				const webhookProcess = await startN8n({
					...hook,
					logFile,
					command: ['webhook'],
					extraEnv: extra,
					onSpawn: (stopWebhook) => processes.push({ stop: stopWebhook }),
				});
				log(`n8n webhook process ${index + 1} on ${webhookProcess.url} (log: ${logFile})`);
				return { ...webhookProcess, logFile };
			}),
		);
		// Workers and webhook processes start side by side.
		const [started, webhookProcesses] = await Promise.all([startWorkers, startWebhooks]);
		return {
			url: state.main.url,
			webhookUrl: webhookProcesses[0]?.url ?? state.main.url,
			folder,
			get main() {
				return state.main;
			},
			workers: started,
			webhooks: webhookProcesses,
			/** Stops the main (SIGTERM, as a deployment does) and starts it again on the same port. */
			restartMain: async () => {
				await state.main.stop();
				state.main = await startMain();
				log(`n8n main restarted on ${state.main.url}`);
			},
			stop,
		};
	} catch (error) {
		await stop();
		throw error;
	}
}

module.exports = { startQueueN8n };
