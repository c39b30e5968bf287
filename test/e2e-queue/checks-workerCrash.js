'use strict';
/**
 * A worker killed while a flow streams to its caller through the webhook process: a streaming
 * Webhook (the killed worker is started again afterwards), then the public chat. Register it
 * last: the second kill leaves one worker.
 */
const assert = require('node:assert/strict');
const path = require('node:path');
const { test } = require('node:test');

const { postAndReadLines } = require('../e2e/streamLines');
const queueReads = require('./reads');

module.exports = function workerCrashChecks(env, log) {
	const { publicChatUrl, executionsOf, workerRunning } = queueReads(env);

	/**
	 * Sends `message` to `url` (`bodyOf(message)`), kills the worker running workflowId's execution
	 * after three tokens, and checks what the caller and Executions show; returns the killed worker.
	 */
	async function killMidStream({ url, bodyOf, workflowId, flowId }) {
		const words = Array.from({ length: 40 }, (_, i) => `word${i} `);
		env.emu.defineFlow(flowId, { tokens: () => words, tokenDelayMs: 250 });
		const message = `crash-${Date.now()}`;
		let killing;
		let itemsSeen = 0;
		const { status, lines, endedAt } = await postAndReadLines(url, bodyOf(message), {
			timeoutMs: 240_000,
			onLine: (line) => {
				if (line.json?.type === 'item') itemsSeen++;
				if (killing || itemsSeen < 3) return;
				killing = (async () => {
					const running = (await executionsOf(workflowId)).filter((e) => e.status === 'running');
					assert.equal(running.length, 1, 'one running execution of the crash workflow');
					const worker = workerRunning(running[0].id);
					// The whole process group: the worker and its task runner.
					process.kill(-worker.child.pid, 'SIGKILL');
					const killedAt = Date.now();
					await worker.exited;
					log(`killed ${path.basename(worker.logFile, '.log')} running execution ${running[0].id}`);
					return { executionId: running[0].id, killedAt, worker };
				})();
				// Failures surface at the `await killing` below, not as an unhandled rejection.
				killing.catch(() => undefined);
			},
		});
		assert.ok(killing, 'three tokens arrived, then the worker was killed');
		const { executionId, killedAt, worker } = await killing;
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
			execution = (await executionsOf(workflowId)).find((e) => e.id === executionId);
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
		return worker;
	}

	test(
		'worker killed mid-stream, streaming Webhook through the webhook process: the caller keeps the tokens that arrived, no end line, the execution fails, the flow ran once',
		{ timeout: 400_000 },
		async () => {
			const worker = await killMidStream({
				url: `${env.stack.n8n.webhookUrl}/webhook/bd-queue-stream`,
				bodyOf: (text) => ({ text }),
				workflowId: 'bdQueueStream',
				flowId: 'flow_queue_typing',
			});
			await worker.restart();
		},
	);

	test(
		'worker killed mid-stream, public chat through the webhook process: the chat keeps the tokens that arrived, ends without an end line, the execution fails, the flow ran once',
		{ timeout: 300_000 },
		async () => {
			await killMidStream({
				url: publicChatUrl('bdQueueCrash'),
				bodyOf: (message) => ({ action: 'sendMessage', sessionId: message, chatInput: message }),
				workflowId: 'bdQueueCrash',
				flowId: 'flow_crash_typing',
			});
		},
	);
};
