'use strict';
/**
 * The webhook process: production webhooks go to `n8n webhook`, which queues them for the
 * workers; streamed chunks come back from the worker through Redis. A streaming Webhook answers
 * once, and a refused run reaches the caller through the node's error output and Respond to
 * Webhook (n8n itself answers a failed workflow with only "Error in workflow").
 */
const assert = require('node:assert/strict');
const { test } = require('node:test');

const { postAndReadLines } = require('../e2e/streamLines');
const queueReads = require('./reads');

module.exports = function webhookProcessChecks(env, log) {
	const { executionsOf, workersThatRan } = queueReads(env);
	const hookUrl = (path) => `${env.stack.n8n.webhookUrl}/webhook/${path}`;

	test(
		'streaming Webhook through the webhook process: the tokens arrive once, in order, with one end; the flow ran once',
		{ timeout: 300_000 },
		async () => {
			const words = Array.from({ length: 12 }, (_, i) => `tok${i} `);
			env.emu.defineFlow('flow_queue_typing', { tokens: () => words, tokenDelayMs: 20 });
			const text = `stream-${Date.now()}`;
			const before = new Set((await executionsOf('bdQueueStream')).map((e) => e.id));
			const { status, lines } = await postAndReadLines(
				hookUrl('bd-queue-stream'),
				{ text },
				{ timeoutMs: 120_000 },
			);
			assert.equal(status, 200);
			const tokens = lines.filter((l) => l.json?.type === 'item').map((l) => l.json.content);
			assert.equal(tokens.join(''), words.join(''));
			assert.equal(lines.filter((l) => l.json?.type === 'end').length, 1);
			const runs = env.emu.requestsTo('run').filter((r) => r.body?.body?.text_input === text);
			assert.equal(runs.length, 1, 'the flow ran once');
			const executions = (await executionsOf('bdQueueStream')).filter((e) => !before.has(e.id));
			assert.equal(executions.length, 1);
			assert.equal(
				workersThatRan([executions[0].id]).reduce((a, b) => a + b, 0),
				1,
			);
			log(
				`streaming Webhook via the webhook process: ${words.length} tokens in ${tokens.length} item lines, one end, 1 run`,
			);
		},
	);

	test(
		"Remember by Key refused on a worker: the webhook caller reads the node's headline through its error output and Respond to Webhook",
		{ timeout: 300_000 },
		async () => {
			const chat = `refusal-${Date.now()}`;
			const response = await fetch(hookUrl('bd-queue-refusal'), {
				method: 'POST',
				headers: { 'content-type': 'application/json' },
				body: JSON.stringify({ chat, text: `${chat} 1` }),
				signal: AbortSignal.timeout(120_000),
			});
			const body = await response.text();
			assert.equal(response.status, 422, body);
			const { error, details } = JSON.parse(body);
			assert.equal(
				error,
				'Session: Remember by Key cannot be used on a queue-mode worker. Choose Keep in Chat Memory',
			);
			assert.match(details, /Redis Chat Memory or Postgres Chat Memory/);
			const runs = env.emu
				.requestsTo('run')
				.filter((r) => r.body?.body?.text_input === `${chat} 1`);
			assert.equal(runs.length, 0, 'nothing was sent to BotDojo');
			log(`refusal to the webhook caller: 422 {"error":"${error}"}`);
		},
	);
};
