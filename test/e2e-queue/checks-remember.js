'use strict';
/**
 * Remember by Key in queue mode: refused on a worker, through a Webhook and the public chat,
 * naming Keep in Chat Memory, and never running a message in a stale session.
 */
const assert = require('node:assert/strict');
const { test } = require('node:test');

const { postAndReadLines } = require('../e2e/streamLines');
const queueReads = require('./reads');

module.exports = function rememberChecks(env, log) {
	const { sessionRanIn, publicChatUrl, executionsOf, workersThatRan } = queueReads(env);

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
			const url = `${env.stack.n8n.webhookUrl}/webhook/bd-queue-remember`;
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
				executions = (await executionsOf('bdQueueWebhookRemember')).filter(
					(e) => !before.has(e.id),
				);
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
		'Remember by Key in queue mode, public chat: the chat user reads the refusal, its headline first, naming Keep in Chat Memory',
		{ timeout: 300_000 },
		async () => {
			const url = publicChatUrl('bdQueueChatRemember');
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
					// The headline first: n8n streams a failed node's description alone.
					assert.match(
						errors[0].json.content,
						/^Session: Remember by Key cannot be used on a queue-mode worker\. Choose Keep in Chat Memory\. This execution ran on an n8n worker/,
					);
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

	test(
		'Remember by Key in queue mode, public chat that does not stream: the error output answers the chat with the refusal (n8n alone says only "Error in workflow")',
		{ timeout: 300_000 },
		async () => {
			const url = publicChatUrl('bdQueueChatRefusal');
			const sessionId = `chat-refusal-${Date.now()}`;
			const response = await fetch(url, {
				method: 'POST',
				headers: { 'content-type': 'application/json' },
				body: JSON.stringify({ action: 'sendMessage', sessionId, chatInput: `${sessionId} 1` }),
				signal: AbortSignal.timeout(120_000),
			});
			const text = await response.text();
			assert.equal(response.status, 200, text);
			// What the chat window shows: the last node's `output`, the node's headline.
			assert.deepEqual(JSON.parse(text), {
				output:
					'Session: Remember by Key cannot be used on a queue-mode worker. Choose Keep in Chat Memory',
			});
			log(`refusal to a non-streaming public chat: ${text}`);
			const runs = env.emu
				.requestsTo('run')
				.filter((r) => r.body?.body?.text_input?.startsWith(sessionId));
			assert.equal(runs.length, 0);
		},
	);
};
