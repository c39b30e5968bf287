'use strict';
/**
 * `npm run start:queue`: the BotDojo emulator, Redis and PostgreSQL (Debian's packages, started
 * as our own processes on 127.0.0.1, data in .queue-local/), and n8n 2.40.7 in queue mode (main +
 * 2 workers + 1 webhook process, each with the packed package), with the demo workflows and the queue-mode workflows
 * of test/e2e-queue/workflows (chat with Redis Chat Memory, Webhook with Postgres Chat Memory).
 * Prints where to sign in. Ctrl-C stops everything and removes .queue-local/ of this run.
 */
const { startQueueStack } = require('./lib/queue-stack');
const local = require('./n8n-local');
const { startEmulator } = require('../emulator');

const log = (message) => console.log(message);

async function main() {
	const emu = await startEmulator({ port: 0, seedDemo: true });
	log(`BotDojo emulator on ${emu.baseUrl}`);
	const owner = {
		email: 'queue@example.com',
		firstName: 'Queue',
		lastName: 'Mode',
		password: local.newPassword(),
	};
	let stack;
	const stop = async () => {
		await stack?.stop();
		await emu.close();
	};
	process.once('SIGINT', () => {
		log('\nStopping n8n, Redis, PostgreSQL and the emulator…');
		void stop().finally(() => process.exit(0));
	});
	try {
		stack = await startQueueStack({
			botDojo: {
				baseUrl: emu.baseUrl,
				accountId: emu.accountId,
				projectId: emu.projectId,
				apiKey: emu.keys.project,
			},
			owner,
			log,
		});
	} catch (error) {
		await emu.close();
		throw error;
	}
	const chat = stack.workflows.find((w) => w.id === 'bdQueueChat');
	const webhookId = chat.nodes.find((n) => n.type.endsWith('.chatTrigger')).webhookId;
	log('');
	log(
		`n8n (queue mode, 2 workers) on ${stack.n8n.url}; production webhooks and chats on ${stack.n8n.webhookUrl}`,
	);
	log(`  sign in as ${owner.email} / ${owner.password}`);
	log(`  public chat (Redis Chat Memory): ${stack.n8n.webhookUrl}/webhook/${webhookId}/chat`);
	log(
		`  webhook (Postgres Chat Memory):  POST ${stack.n8n.webhookUrl}/webhook/bd-queue-memory {"chat":"c1","text":"Hi"}`,
	);
	log('Ctrl-C stops everything.');
}

main().catch((error) => {
	console.error(error.message ?? error);
	process.exit(1);
});
