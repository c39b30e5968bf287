'use strict';
/**
 * Webhook (v2.1, response mode "streaming") → BotDojo Run Flow on the emulator's flow_slow
 * (10 tokens, 100 ms apart): the caller gets the tokens while the flow is still answering.
 * And without live streaming (a chat that answers with its last node, which is all n8n before
 * 1.104 can do): Run Flow still reads BotDojo's stream and answers whole.
 */
const assert = require('node:assert/strict');
const { test } = require('node:test');

const { registerWhere, workflowMissingById } = require('./n8nFeatures');
const { postAndReadLines } = require('./streamLines');

const ANSWER = 'one two three four five six seven eight nine ten';

module.exports = function registerStreamingChecks(env) {
	const streamingWebhook =
		'a streaming webhook gets the flow tokens incrementally, in order, complete';
	registerWhere(workflowMissingById('bdE2eStreamWebhook'), streamingWebhook, () =>
		test(streamingWebhook, { timeout: 120_000 }, async () => {
			env.assertPublished('bdE2eStreamWebhook');
			const mark = env.emu.requests.length;
			const started = Date.now();
			const { status, lines, endedAt } = await postAndReadLines(
				`${env.n8n.url}/webhook/botdojo-e2e-stream`,
				{ message: 'Count to ten' },
			);
			assert.equal(status, 200);
			const chunks = lines.filter((l) => l.json?.metadata?.nodeName === 'BotDojo Run Flow');
			const items = chunks.filter((l) => l.json.type === 'item');
			assert.equal(chunks[0].json.type, 'begin');
			assert.equal(chunks[chunks.length - 1].json.type, 'end');

			// Complete and in order: the concatenation is the flow's answer.
			assert.equal(items.map((l) => l.json.content).join(''), ANSWER);
			assert.equal(items.length, 10, 'one chunk per token');
			for (let i = 1; i < items.length; i++) {
				assert.ok(items[i].at >= items[i - 1].at, 'chunks arrive in order');
				assert.ok(items[i].json.metadata.timestamp >= items[i - 1].json.metadata.timestamp);
			}

			// Incremental: the first token reached us before the emulator had finished its stream.
			const [run] = env.requestsSince(mark, 'run');
			assert.equal(run.body.options.stream, 'http');
			assert.ok(run.respondedAt, 'the emulator logged the end of its stream');
			const firstAt = items[0].at;
			assert.ok(
				firstAt < run.respondedAt,
				`first chunk at +${firstAt - started} ms, emulator stream ended at +${run.respondedAt - started} ms`,
			);
			const beforeEnd = items.filter((l) => l.at < run.respondedAt).length;
			assert.ok(beforeEnd >= 5, `${beforeEnd} of 10 chunks arrived before the flow's stream ended`);
			env.log(
				`streaming: first chunk +${firstAt - started} ms, flow stream end +${run.respondedAt - started} ms, ` +
					`response end +${endedAt - started} ms, ${beforeEnd}/10 chunks before the flow ended`,
			);
		}),
	);

	test(
		'without live streaming (a chat answering with its last node) Run Flow reads the stream and answers whole',
		{ timeout: 120_000 },
		async () => {
			env.assertPublished('bdE2eChatLastNode');
			const chat = env.workflows.find((w) => w.id === 'bdE2eChatLastNode');
			const webhookId = chat.nodes.find((n) => n.type.endsWith('.chatTrigger')).webhookId;
			const mark = env.emu.requests.length;
			const response = await fetch(`${env.n8n.url}/webhook/${webhookId}/chat`, {
				method: 'POST',
				headers: { 'content-type': 'application/json' },
				body: JSON.stringify({
					action: 'sendMessage',
					sessionId: `e2e-last-node-${Date.now()}`,
					chatInput: 'Count to ten',
				}),
				signal: AbortSignal.timeout(60_000),
			});
			const text = await response.text();
			assert.equal(response.status, 200, text);
			// The chat gets the node's item: the whole answer at once, not a stream of chunks.
			const answer = JSON.parse(text);
			assert.equal(answer.text, ANSWER, text);
			assert.equal(answer.status, 'complete');
			const runs = env.requestsSince(mark, 'run');
			assert.equal(runs.length, 1, 'the flow ran once');
			assert.equal(runs[0].body.options.stream, 'http', 'the node read BotDojo as a stream');
		},
	);
};
