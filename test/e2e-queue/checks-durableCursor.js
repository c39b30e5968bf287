'use strict';
/**
 * The BotDojo Trigger under n8n's durable poll cursors (N8N_POLLER_DURABLE_CURSORS_ENABLED with
 * N8N_SCHEDULER_ENABLED, N8N_SCHEDULER_POLL_TRIGGERS_ENABLED and
 * N8N_USE_WORKFLOW_PUBLICATION_SERVICE, set on every process of the suite): n8n's scheduler polls
 * on the main and commits the node's static data with the execution. Across a restart of the main
 * between polls, every request fires exactly once. Each request the Trigger fires runs flow_echo
 * with "fired <request id>", counted at the emulator.
 */
const assert = require('node:assert/strict');
const { test } = require('node:test');

const local = require('../../scripts/n8n-local');

const FLOW = 'flow_queue_trigger';
const WORKFLOW = 'bdQueueTrigger';

module.exports = function durableCursorChecks(env, log) {
	/** Runs FLOW on the emulator directly, as another BotDojo client would; returns the request id. */
	async function requestOnBotDojo(text) {
		const { emu } = env;
		const response = await fetch(
			`${emu.baseUrl}/accounts/${emu.accountId}/projects/${emu.projectId}/flows/${FLOW}/run`,
			{
				method: 'POST',
				headers: { authorization: emu.keys.project, 'content-type': 'application/json' },
				body: JSON.stringify({ body: { text_input: text }, options: {} }),
			},
		);
		assert.equal(response.status, 200, await response.clone().text());
		const record = [...emu.records.values()].find((r) => r.body?.text_input === text);
		assert.ok(record, `a flow request for "${text}"`);
		return record.id;
	}

	/** How often each request id was fired (a run of "fired <id>" at the emulator). */
	const firedCounts = (ids) =>
		ids.map(
			(id) =>
				env.emu.requestsTo('run').filter((r) => r.body?.body?.text_input === `fired ${id}`).length,
		);

	/** Waits (a poll a minute) until every id fired at least once. */
	async function untilFired(ids, label) {
		const deadline = Date.now() + 240_000;
		while (firedCounts(ids).some((count) => count === 0)) {
			if (Date.now() > deadline)
				assert.fail(`${label}: fired ${JSON.stringify(firedCounts(ids))} within 240 s`);
			await new Promise((resolve) => setTimeout(resolve, 2000));
		}
	}

	/** Whether the first poll committed the Trigger's cursor (n8n's poller_state row holds `{}`
	 *  from the activation until then). */
	const firstPollCommitted = () =>
		env.stack.services.postgres.query(
			`SELECT count(*) FROM poller_state WHERE "workflowId" = '${WORKFLOW}' AND cursor::text NOT IN ('{}', 'null')`,
		) === '1';

	test(
		'Trigger under durable poll cursors, the main restarted between polls: every request fires exactly once',
		{ timeout: 900_000 },
		async () => {
			env.emu.defineFlow(FLOW, { answer: (body) => `done: ${body?.text_input ?? ''}` });
			await local.activateWorkflow(env.stack.session, WORKFLOW);
			// The first poll records where the Trigger starts; requests before it are history.
			for (let i = 0; !firstPollCommitted(); i++) {
				assert.ok(i < 180, 'the first poll committed its cursor within 180 s');
				await new Promise((resolve) => setTimeout(resolve, 1000));
			}
			const first = [];
			for (let i = 0; i < 3; i++) first.push(await requestOnBotDojo(`trigger A${i} ${Date.now()}`));
			await untilFired(first, 'before the restart');
			log(`durable cursors: ${first.length} requests fired; restarting the main`);

			await env.stack.n8n.restartMain();
			const second = [];
			for (let i = 0; i < 3; i++)
				second.push(await requestOnBotDojo(`trigger B${i} ${Date.now()}`));
			await untilFired(second, 'after the restart');
			// One more poll after the one that fired B: a request made now fires in it or later.
			const last = [await requestOnBotDojo(`trigger C ${Date.now()}`)];
			await untilFired(last, 'the poll after');

			const counts = firedCounts([...first, ...second, ...last]);
			log(`durable cursors across a main restart: fired counts ${JSON.stringify(counts)}`);
			assert.deepEqual(
				counts,
				counts.map(() => 1),
				'every request fired exactly once',
			);
		},
	);
};
