'use strict';
/**
 * Issue 9 §5: a blocking (non-streamed) Run Flow lasts as long as its Timeout option allows, and
 * Timeout 0 means no limit, whatever n8n's own default HTTP timeout is. n8n sets 300 s for every
 * node request that names no timeout; the suite's n8n has that default scaled down to
 * N8N_HTTP_DEFAULT_MS (see scaleN8nHttpDefault.js), and the flow here answers only after
 * SLOW_FLOW_MS, which is longer.
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { test } = require('node:test');

const N8N_HTTP_DEFAULT_MS = 3_000;
const SLOW_FLOW_MS = 5_000;
const ANSWER = 'Worth the wait';

/** What harness.js passes to n8n so that its default HTTP timeout is N8N_HTTP_DEFAULT_MS. */
const scaledDefaultEnv = {
	NODE_OPTIONS: `--require ${path.join(__dirname, 'scaleN8nHttpDefault.js')}`,
	E2E_N8N_HTTP_DEFAULT_MS: String(N8N_HTTP_DEFAULT_MS),
};

function registerSlowRunChecks(env) {
	test(
		"a blocking run outlasts n8n's default HTTP timeout: Timeout 0 and a long Timeout wait for the answer, a short one stops",
		{ timeout: 180_000 },
		async () => {
			const n8nLog = fs.readFileSync(path.join(env.userFolder, 'n8n.log'), 'utf8');
			assert.match(
				n8nLog,
				new RegExp(`default HTTP timeout 300000 ms scaled to ${N8N_HTTP_DEFAULT_MS} ms`),
				"n8n's default HTTP timeout was scaled down for this check",
			);
			env.emu.defineFlow('flow_e2e_slow', { answer: () => ANSWER, delayMs: SLOW_FLOW_MS });
			const mark = env.emu.requests.length;
			const { outputs } = await env.execute('bdE2eSlowRun');

			for (const node of ['Timeout 0 (no limit)', 'Timeout 30 s']) {
				const [item] = outputs[node];
				assert.equal(item.json.error, undefined, `${node}: ${JSON.stringify(item.json)}`);
				assert.equal(item.json.text, ANSWER, `${node} output`);
			}
			const [stopped] = outputs['Timeout 1 s'];
			assert.match(
				String(stopped.json.error),
				/did not answer within the timeout of 1000 ms/,
				JSON.stringify(stopped.json),
			);

			// Each node sent its run once, blocking (no stream), and no run was retried. The emulator
			// logs a run when it answers: the one given up after 1 s is logged once the flow ends.
			const ended = Date.now() + SLOW_FLOW_MS * 3;
			while (env.requestsSince(mark, 'run').length < 3 && Date.now() < ended)
				await new Promise((resolve) => setTimeout(resolve, 200));
			const runs = env.requestsSince(mark, 'run');
			assert.equal(runs.length, 3, 'one run per node');
			for (const run of runs) assert.notEqual(run.body.options?.stream, 'http');
		},
	);
}

module.exports = { registerSlowRunChecks, scaledDefaultEnv };
