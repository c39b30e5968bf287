'use strict';
/**
 * Queue-mode end-to-end suite (`npm run test:e2e:queue`): n8n 2.40.7 main + 2 workers, Redis and
 * PostgreSQL (Debian's packages, our own processes on 127.0.0.1), the packed package in every
 * process, against the BotDojo emulator in this process. Several conversations at once through
 * the public chat (Redis Chat Memory) and a Webhook (Postgres Chat Memory); the emulator's request
 * log shows which session each run asked for.
 *   QUEUE_KEEP=1  keep .queue-local/ (logs, data) afterwards
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { before, after, test } = require('node:test');

const local = require('../../scripts/n8n-local');
const { startQueueStack } = require('../../scripts/lib/queue-stack');
const { startEmulator } = require('../../emulator');
const { postAndReadLines } = require('../e2e/streamLines');

const log = (message) => console.log(`[e2e-queue] ${message}`);
const env = {};
const CONVERSATIONS = 6;

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
			},
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

/** The session each run request asked for, by the message it sent (undefined: none). */
function sessionAskedFor(text) {
	const runs = env.emu.requests.filter(
		(r) => r.endpoint === 'run' && r.body?.body?.text_input === text,
	);
	assert.equal(runs.length, 1, `one run of "${text}"`);
	return runs[0].body.options?.flow_session_id;
}

/** The session the run of a message ran in (from the emulator's flow request records). */
function sessionRanIn(text) {
	const record = [...env.emu.records.values()].find((r) => r.body?.text_input === text);
	assert.ok(record, `a flow request for "${text}"`);
	return record.flow_session_id;
}

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
	const url = `${env.stack.n8n.url}/webhook/${path}`;
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
		const chatWorkflow = env.stack.workflows.find((w) => w.id === 'bdQueueChat');
		const webhookId = chatWorkflow.nodes.find((n) => n.type.endsWith('.chatTrigger')).webhookId;
		const url = `${env.stack.n8n.url}/webhook/${webhookId}/chat`;
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

/** Executions of a workflow as n8n's Executions list shows them (newest first). */
async function executionsOf(workflowId) {
	const filter = encodeURIComponent(JSON.stringify({ workflowId }));
	const { data } = await env.stack.session.request(
		'GET',
		`/rest/executions?filter=${filter}&limit=250`,
	);
	return data.results;
}

/** How many of `executionIds` each worker's log says it started. */
function workersThatRan(executionIds) {
	return env.stack.n8n.workers.map(
		(w) =>
			executionIds.filter((id) =>
				new RegExp(`Worker started execution ${id} \\(`).test(fs.readFileSync(w.logFile, 'utf8')),
			).length,
	);
}

/**
 * Messages that ran in a session other than the newest one their conversation used before them
 * (rounds are sent one after another, so an earlier round's run ended first), and messages that
 * started over without saying so although their conversation had a session.
 */
function staleAndLost(chats, rounds) {
	const stale = [];
	const lost = [];
	for (const chat of chats) {
		let newest;
		for (let round = 1; round <= rounds; round++) {
			const text = `${chat} ${round}`;
			const runs = env.emu.requests.filter(
				(r) => r.endpoint === 'run' && r.body?.body?.text_input === text,
			);
			if (runs.length === 0) continue;
			const asked = runs[0].body.options?.flow_session_id;
			if (asked !== undefined && asked !== newest)
				stale.push(`${text}: ${asked}, newest ${newest}`);
			if (asked === undefined && newest !== undefined) lost.push(text);
			newest = sessionRanIn(text);
		}
	}
	return { stale, lost };
}

const REFUSAL =
	/Remember by Key cannot be used on a queue-mode worker\. Choose Keep in Chat Memory/;

test(
	'Remember by Key in queue mode: every message is refused where the user looks, naming Keep in Chat Memory; none runs in a stale session',
	{ timeout: 400_000 },
	async () => {
		const chats = Array.from({ length: 20 }, (_, i) => `remember-${i}-${Date.now()}`);
		const rounds = 3;
		const url = `${env.stack.n8n.url}/webhook/bd-queue-remember`;
		const answers = [];
		const before = new Set((await executionsOf('bdQueueWebhookRemember')).map((e) => e.id));
		for (let round = 1; round <= rounds; round++) {
			const sent = chats.map(async (chat) => {
				const response = await fetch(url, {
					method: 'POST',
					headers: { 'content-type': 'application/json' },
					body: JSON.stringify({ chat, text: `${chat} ${round}` }),
					signal: AbortSignal.timeout(120_000),
				});
				return { status: response.status, text: await response.text() };
			});
			answers.push(...(await Promise.all(sent)));
		}
		const { stale, lost } = staleAndLost(chats, rounds);
		const ran = answers.filter((a) => a.status === 200);
		log(
			`queue mode, webhook + Remember by Key: ${chats.length} conversations × ${rounds} rounds, ${ran.length} messages ran, ${stale.length} in a stale session, ${lost.length} started over silently`,
		);
		assert.deepEqual(
			stale,
			[],
			'no message runs in a session older than its conversation’s newest',
		);
		assert.deepEqual(lost, [], 'no message starts over without saying so');
		assert.equal(ran.length, 0, 'every message was refused');
		const runs = env.emu
			.requestsTo('run')
			.filter((r) => /^remember-/.test(r.body?.body?.text_input));
		assert.equal(runs.length, 0, 'nothing was sent to BotDojo');

		// Where the user looks: each execution failed with the refusal, on both workers.
		let executions = [];
		for (let i = 0; i < 30; i++) {
			executions = (await executionsOf('bdQueueWebhookRemember')).filter((e) => !before.has(e.id));
			if (executions.length === answers.length && executions.every((e) => e.status !== 'running'))
				break;
			await new Promise((resolve) => setTimeout(resolve, 1000));
		}
		assert.equal(executions.length, answers.length);
		assert.deepEqual([...new Set(executions.map((e) => e.status))], ['error']);
		const perWorker = workersThatRan(executions.map((e) => e.id));
		log(`the ${executions.length} executions ran on the workers: ${perWorker.join(' + ')}`);
		assert.ok(
			perWorker.every((count) => count > 0),
			'both workers ran some',
		);
		for (const { id } of executions.slice(0, 5)) {
			const { data: shown } = await env.stack.session.request('GET', `/rest/executions/${id}`);
			assert.match(shown.data, REFUSAL);
			assert.match(shown.data, /Redis Chat Memory or Postgres Chat Memory/);
		}
	},
);

test(
	'Remember by Key in queue mode, public chat: the chat user reads the refusal naming Keep in Chat Memory',
	{ timeout: 300_000 },
	async () => {
		const chatWorkflow = env.stack.workflows.find((w) => w.id === 'bdQueueChatRemember');
		const webhookId = chatWorkflow.nodes.find((n) => n.type.endsWith('.chatTrigger')).webhookId;
		const url = `${env.stack.n8n.url}/webhook/${webhookId}/chat`;
		const chats = Array.from({ length: 4 }, (_, i) => `chat-remember-${i}-${Date.now()}`);
		for (const round of [1, 2]) {
			const streams = await Promise.all(
				chats.map((sessionId) =>
					postAndReadLines(
						url,
						{ action: 'sendMessage', sessionId, chatInput: `${sessionId} ${round}` },
						{ timeoutMs: 120_000 },
					),
				),
			);
			for (const { status, lines } of streams) {
				assert.equal(status, 200);
				const errors = lines.filter((l) => l.json?.type === 'error');
				assert.equal(errors.length, 1, JSON.stringify(lines.map((l) => l.json)));
				assert.match(errors[0].json.content, /Keep in Chat Memory/);
				assert.equal(lines.filter((l) => l.json?.type === 'item').length, 0);
			}
		}
		log(
			`chat + Remember by Key: ${chats.length} conversations × 2 messages, each answered with the refusal`,
		);
		const runs = env.emu
			.requestsTo('run')
			.filter((r) => /^chat-remember-/.test(r.body?.body?.text_input));
		assert.equal(runs.length, 0);
	},
);

/** The worker whose log says it started `executionId` (n8n logs "Worker started execution N (job M)"). */
function workerRunning(executionId) {
	const started = new RegExp(`Worker started execution ${executionId} \\(`);
	const found = env.stack.n8n.workers.filter((w) =>
		started.test(fs.readFileSync(w.logFile, 'utf8')),
	);
	assert.equal(found.length, 1, `one worker log names execution ${executionId}`);
	return found[0];
}

async function crashWorkflowExecutions() {
	const filter = encodeURIComponent(JSON.stringify({ workflowId: 'bdQueueCrash' }));
	const { data } = await env.stack.session.request('GET', `/rest/executions?filter=${filter}`);
	return data.results;
}

// Last test: it kills a worker and does not restart it.
test(
	'worker killed mid-stream: the chat keeps the tokens that arrived, ends without an end line, the execution fails, the flow ran once',
	{ timeout: 300_000 },
	async () => {
		const words = Array.from({ length: 40 }, (_, i) => `word${i} `);
		env.emu.defineFlow('flow_crash_typing', { tokens: () => words, tokenDelayMs: 250 });
		const chatWorkflow = env.stack.workflows.find((w) => w.id === 'bdQueueCrash');
		const webhookId = chatWorkflow.nodes.find((n) => n.type.endsWith('.chatTrigger')).webhookId;
		const message = `crash-${Date.now()}`;
		let killing;
		let itemsSeen = 0;
		const { status, lines, endedAt } = await postAndReadLines(
			`${env.stack.n8n.url}/webhook/${webhookId}/chat`,
			{ action: 'sendMessage', sessionId: message, chatInput: message },
			{
				timeoutMs: 240_000,
				onLine: (line) => {
					if (line.json?.type === 'item') itemsSeen++;
					if (killing || itemsSeen < 3) return;
					killing = (async () => {
						const running = (await crashWorkflowExecutions()).filter((e) => e.status === 'running');
						assert.equal(running.length, 1, 'one running execution of the crash workflow');
						const worker = workerRunning(running[0].id);
						// The whole process group: the worker and its task runner.
						process.kill(-worker.child.pid, 'SIGKILL');
						const killedAt = Date.now();
						await worker.exited;
						log(
							`killed ${path.basename(worker.logFile, '.log')} running execution ${running[0].id}`,
						);
						return { executionId: running[0].id, killedAt };
					})();
					// Failures surface at the `await killing` below, not as an unhandled rejection.
					killing.catch(() => undefined);
				},
			},
		);
		assert.ok(killing, 'three tokens arrived, then the worker was killed');
		const { executionId, killedAt } = await killing;
		assert.equal(status, 200);
		const tokens = lines.filter((l) => l.json?.type === 'item').map((l) => l.json.content);
		assert.ok(tokens.length >= 3 && tokens.length < words.length, `${tokens.length} tokens`);
		assert.equal(tokens.join(''), words.slice(0, tokens.length).join(''));
		assert.equal(lines.filter((l) => l.json?.type === 'end').length, 0, 'no end line');
		log(
			`${tokens.length}/${words.length} tokens arrived; the connection ended ${Math.round((endedAt - killedAt) / 1000)} s after the kill, without an end line`,
		);

		// n8n closes the caller's response first, then saves the failed execution: wait for it.
		let execution;
		for (let i = 0; i < 60; i++) {
			execution = (await crashWorkflowExecutions()).find((e) => e.id === executionId);
			if (!['new', 'running'].includes(execution.status)) break;
			await new Promise((resolve) => setTimeout(resolve, 1000));
		}
		assert.ok(
			['error', 'crashed'].includes(execution.status),
			`execution ${executionId} is ${execution.status}`,
		);
		// What Executions shows for it: n8n's stalled-job error (the run data is gone with the worker).
		const { data: shown } = await env.stack.session.request(
			'GET',
			`/rest/executions/${executionId}`,
		);
		assert.match(shown.data, /failed to be processed too many times/);
		log(`execution ${executionId}: ${execution.status}, "failed to be processed too many times"`);
		// The stalled check has run again since: still the one run.
		await new Promise((resolve) => setTimeout(resolve, 6_000));
		const runs = env.emu.requestsTo('run').filter((r) => r.body?.body?.text_input === message);
		assert.equal(runs.length, 1, 'the flow ran once, never again');
	},
);
