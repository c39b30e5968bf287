'use strict';
/**
 * The whole queue-mode setup of `npm run start:queue` and the queue e2e suite: Redis and
 * PostgreSQL, the packed package, the BotDojo, Redis and Postgres credentials, the workflows,
 * n8n main + workers, an owner account, and the workflows with a trigger published.
 */
const fs = require('node:fs');
const path = require('node:path');

const local = require('../n8n-local');
const { startQueueServices } = require('./queue-services');
const { startQueueN8n } = require('./queue-n8n');

const QUEUE_WORKFLOWS_DIR = path.join(local.ROOT, 'test', 'e2e-queue', 'workflows');

function readQueueWorkflows() {
	return fs
		.readdirSync(QUEUE_WORKFLOWS_DIR)
		.filter((file) => file.endsWith('.json'))
		.sort()
		.map((file) => JSON.parse(fs.readFileSync(path.join(QUEUE_WORKFLOWS_DIR, file), 'utf8')));
}

/** Credentials for the chat memories of the queue workflows (the services started here). */
function memoryCredentials(services) {
	return [
		{
			id: 'botdojoQueueRedis',
			name: 'Queue Redis',
			type: 'redis',
			data: { host: '127.0.0.1', port: services.redis.port, database: 0, password: '' },
		},
		{
			id: 'botdojoQueuePg',
			name: 'Queue Postgres',
			type: 'postgres',
			data: {
				host: '127.0.0.1',
				port: services.postgres.port,
				database: services.postgres.database,
				user: services.postgres.user,
				password: '',
				ssl: 'disable',
			},
		},
	];
}

/**
 * @param botDojo { baseUrl, accountId, projectId, apiKey }
 * @param extraEnv environment for every n8n process, workerEnv for the workers (see startQueueN8n)
 * @returns { services, n8n, session, owner, workflows, stop(keep) }
 */
async function startQueueStack({
	botDojo,
	owner,
	workers = 2,
	webhooks = 1,
	extraEnv,
	workerEnv,
	log = console.log,
}) {
	await local.ensureN8nInstalled({ log });
	const packed = local.buildAndPack();
	const services = await startQueueServices(log);
	let n8n;
	try {
		// Postgres Chat Memory creates its table on first use; racing first messages could both
		// try, so the table exists before any message (the schema of langchain's history), in
		// the database its credential names.
		services.postgres.query(
			'CREATE TABLE IF NOT EXISTS n8n_chat_histories (id SERIAL PRIMARY KEY, session_id VARCHAR(255) NOT NULL, message JSONB NOT NULL)',
		);
		const workflows = [...local.readExamples(), ...readQueueWorkflows()].map(
			({ file: _file, ...workflow }) => workflow,
		);
		const credentials = [local.botDojoCredential(botDojo), ...memoryCredentials(services)];
		n8n = await startQueueN8n({
			services,
			packed,
			credentials,
			workflows,
			workers,
			webhooks,
			extraEnv,
			workerEnv,
			log,
		});
		const session = new local.N8nSession(n8n.url);
		await session.setupOwnerOrLogin(owner);
		// A workflow needing a credential this stack has none of (the AI Agent demo's OpenAI
		// account) cannot be published: n8n refuses it.
		const provided = new Set(credentials.map((credential) => credential.type));
		for (const workflow of workflows) {
			const hasTrigger = workflow.nodes.some((node) => /webhook|chatTrigger/i.test(node.type));
			const credentialsProvided = workflow.nodes.every((node) =>
				Object.keys(node.credentials ?? {}).every((type) => provided.has(type)),
			);
			if (hasTrigger && credentialsProvided) await local.activateWorkflow(session, workflow.id);
		}
		return {
			services,
			n8n,
			session,
			workflows,
			stop: async (keep = false) => {
				await n8n.stop();
				await services.stop(keep);
				if (!keep) fs.rmSync(n8n.folder, { recursive: true, force: true });
			},
		};
	} catch (error) {
		await n8n?.stop();
		await services.stop(true);
		throw error;
	} finally {
		packed.cleanup();
	}
}

module.exports = { startQueueStack };
