'use strict';
/**
 * Queue-mode end-to-end suite (`npm run test:e2e:queue`): n8n 2.40.7 main + 2 workers + 1 webhook
 * process (production webhooks and chats go to it), Redis and PostgreSQL (Debian's packages, our
 * own processes on 127.0.0.1), the packed package in every process, against the BotDojo emulator
 * in this process. Several conversations at once through the public chat (Redis Chat Memory) and a
 * Webhook (Postgres Chat Memory); the emulator's request log shows which session each run asked
 * for. Then files (checks-files), the webhook process (checks-webhookProcess), Remember by Key,
 * the Trigger under durable poll cursors and a worker killed mid-stream.
 *   QUEUE_KEEP=1  keep .queue-local/ (logs, data) afterwards
 */
const assert = require('node:assert/strict');
const { before, after, test } = require('node:test');

const local = require('../../scripts/n8n-local');
const { startQueueStack } = require('../../scripts/lib/queue-stack');
const { startEmulator } = require('../../emulator');
const { postAndReadLines } = require('../e2e/streamLines');
const queueReads = require('./reads');

const log = (message) => console.log(`[e2e-queue] ${message}`);
const env = {};
const CONVERSATIONS = 6;
const { sessionAskedFor, sessionRanIn, publicChatUrl } = queueReads(env);

before(
	async () => {
		env.emu = await startEmulator({ port: 0 });
		env.stack = await startQueueStack({
			botDojo: {
				baseUrl: env.emu.baseUrl,
				accountId: env.emu.accountId,
				projectId: env.emu.projectId,
				apiKey: env.emu.keys.project,
			},
			owner: {
				email: 'queue@example.com',
				firstName: 'Queue',
				lastName: 'Mode',
				password: local.newPassword(),
			},
			// n8n's defaults find a dead worker's job after up to 60 s (lock) + 30 s (stalled check);
			// shorter here so the worker-crash test waits ~15 s (ms; the renewal stays well inside).
			extraEnv: {
				QUEUE_WORKER_LOCK_DURATION: '10000',
				QUEUE_WORKER_LOCK_RENEW_TIME: '2500',
				QUEUE_WORKER_STALLED_INTERVAL: '5000',
				// n8n's durable poll cursors (checks-durableCursor): all four or none take effect.
				N8N_POLLER_DURABLE_CURSORS_ENABLED: 'true',
				N8N_SCHEDULER_ENABLED: 'true',
				N8N_SCHEDULER_POLL_TRIGGERS_ENABLED: 'true',
				N8N_USE_WORKFLOW_PUBLICATION_SERVICE: 'true',
			},
			// n8n's per-file cap of its database binary mode, lowered so checks-files can pass it.
			workerEnv: { N8N_BINARY_DATA_DATABASE_MAX_FILE_SIZE: '1' },
			log,
		});
	},
	{ timeout: 20 * 60_000 },
);
after(
	async () => {
		await env.stack?.stop(process.env.QUEUE_KEEP === '1');
		await env.emu?.close();
	},
	{ timeout: 120_000 },
);

/** Sessions created per conversation and second messages that continued their first's session. */
function measure(label, chats) {
	const firstSessions = chats.map((chat) => sessionRanIn(`${chat} one`));
	const continued = chats.filter(
		(chat, i) => sessionAskedFor(`${chat} two`) === firstSessions[i],
	).length;
	const sessions = env.emu.sessions.size - env.sessionsBefore;
	log(
		`${label}: ${chats.length} conversations, ${sessions} BotDojo sessions created, ${continued}/${chats.length} second messages continued their session`,
	);
	return { sessions, continued, firstSessions };
}

const chatsOf = (prefix) =>
	Array.from({ length: CONVERSATIONS }, (_, i) => `${prefix}-${i}-${Date.now()}`);

/**
 * Sends each of CONVERSATIONS new conversations its first message, all at once, then each its
 * second message, all at once; `say(chat, text)` sends one message.
 */
async function twoRounds(prefix, say) {
	const chats = chatsOf(prefix);
	env.sessionsBefore = env.emu.sessions.size;
	const firsts = await Promise.all(chats.map((chat) => say(chat, `${chat} one`)));
	const seconds = await Promise.all(chats.map((chat) => say(chat, `${chat} two`)));
	return { chats, firsts, seconds };
}

/** `say` for a production webhook of the stack: posts `{ chat, text }`, returns its JSON answer. */
function webhookSay(path) {
	const url = `${env.stack.n8n.webhookUrl}/webhook/${path}`;
	return async (chat, text) => {
		const response = await fetch(url, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ chat, text }),
			signal: AbortSignal.timeout(120_000),
		});
		assert.equal(response.status, 200, await response.clone().text());
		return await response.json();
	};
}

test(
	'public chat (Redis Chat Memory): every second message continues its conversation',
	{ timeout: 300_000 },
	async () => {
		const url = publicChatUrl('bdQueueChat');
		const say = async (sessionId, chatInput) => {
			const { status, lines } = await postAndReadLines(
				url,
				{ action: 'sendMessage', sessionId, chatInput },
				{ timeoutMs: 120_000 },
			);
			assert.equal(status, 200);
			const items = lines.filter(
				(l) => l.json?.type === 'item' && l.json.metadata?.nodeName === 'BotDojo Run Flow',
			);
			return items.map((l) => l.json.content).join('');
		};
		const { chats, firsts, seconds } = await twoRounds('chat', say);
		firsts.forEach((text, i) => assert.equal(text, `Echo #1: ${chats[i]} one`));
		seconds.forEach((text, i) => assert.equal(text, `Echo #2: ${chats[i]} two`));
		const { sessions, continued } = measure('queue mode, chat + Redis Chat Memory', chats);
		assert.equal(continued, chats.length);
		assert.equal(sessions, chats.length);
	},
);

test(
	'Webhook → Run Flow (Postgres Chat Memory): every second message continues its conversation, two racing first messages end on one session',
	{ timeout: 300_000 },
	async () => {
		const say = webhookSay('bd-queue-memory');
		// The chat history table exists before the first message (queue-stack.js): n8n's Postgres
		// Chat Memory creates it on first use, which two racing creators on a fresh database fail.
		const { chats, firsts, seconds } = await twoRounds('hook', say);
		firsts.forEach((json) => assert.equal(json.session, 'new'));
		seconds.forEach((json, i) => {
			assert.equal(json.session, 'continued');
			assert.equal(json.flowSessionId, firsts[i].flowSessionId);
			assert.equal(json.text, `Echo #2: ${chats[i]} two`);
		});
		const { continued } = measure('queue mode, webhook + Postgres Chat Memory', chats);
		assert.equal(continued, chats.length);

		const twin = `twin-${Date.now()}`;
		const [a, b] = await Promise.all([say(twin, 'twin first'), say(twin, 'twin second')]);
		assert.equal(a.flowSessionId, b.flowSessionId);
		assert.equal(sessionAskedFor('twin first'), sessionAskedFor('twin second'));
	},
);

require('./checks-files')(env, log);
require('./checks-webhookProcess')(env, log);
require('./checks-remember')(env, log);
require('./checks-durableCursor')(env, log);
// Last: it kills a worker and does not restart it.
require('./checks-workerCrash')(env, log);
