'use strict';
/**
 * Issue 21 §2, demo 8: n8n's own Evaluations score a BotDojo flow. The dataset is the n8n Data
 * table `npm start` makes through n8n's REST API (scripts/lib/demo-setup.js); the evaluation
 * starts and is read back through the REST API the Evaluations tab uses (POST …/test-runs/new, GET …/test-runs/:id, …/test-cases), and the
 * metrics n8n stored are the ones the emulator's flow_agent gives: it always calls `search` and
 * answers `Found 2 hits for "<question>".`.
 */
const assert = require('node:assert/strict');
const { test } = require('node:test');

const { DATASET_ROWS, setUpEvaluationDataset } = require('../../scripts/lib/demo-setup');
const { registerWhere, workflowMissingById } = require('./n8nFeatures');

const WORKFLOW_ID = 'bdDemoEvaluation';
const TRIGGER = 'When fetching a dataset row';
const POLL_MS = 500;

const ROWS = DATASET_ROWS;
// Per row of the demo's dataset: correctness (exact match) and tools used (share of the expected
// tools called), as flow_agent (always `search`, `Found 2 hits for "<question>".`) answers them.
const EXPECTED_CASES = [
	{ question: 'refund policy', correctness: 1, tools_used: 1 },
	{ question: 'opening hours', correctness: 1, tools_used: 0.5 },
	{ question: 'shipping to Canada', correctness: 0, tools_used: 1 },
];

/**
 * The dataset as `npm start` makes it: the Data table of the demo, chosen in its Evaluation
 * Trigger. A second start finds the table instead of making another.
 */
async function setUpDatasetAsNpmStart(session) {
	const imported = [{ id: WORKFLOW_ID }];
	const made = await setUpEvaluationDataset(session, { imported });
	assert.equal(made.created, true);
	const again = await setUpEvaluationDataset(session, { imported });
	assert.deepEqual(again, { ...made, created: false });
	const { data: rows } = await session.request(
		'GET',
		`/rest/projects/${(await session.request('GET', '/rest/projects/personal')).data.id}/data-tables/${made.id}/rows`,
	);
	assert.equal(rows.count, ROWS.length, 'one table with the sample rows, not two');
	const { data: workflow } = await session.request('GET', `/rest/workflows/${WORKFLOW_ID}`);
	const trigger = workflow.nodes.find((node) => node.name === TRIGGER);
	assert.equal(trigger.parameters.dataTableId.value, made.id);
	return made;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function testRunIds(session) {
	const { data } = await session.request('GET', `/rest/workflows/${WORKFLOW_ID}/test-runs`);
	return data.map((run) => run.id);
}

/**
 * Starts an evaluation and returns its test run's id: n8n 2.x answers it; n8n 1.123 answers only
 * `{ success: true }`, so there it is the run that the list did not hold before (polled; the
 * test's own timeout bounds the wait).
 */
async function startTestRun(session) {
	const before = new Set(await testRunIds(session));
	const started = await session.request('POST', `/rest/workflows/${WORKFLOW_ID}/test-runs/new`, {});
	const answered = started.json?.testRunId ?? started.data?.testRunId;
	assert.ok(answered || started.json?.success === true, `n8n started a test run: ${started.text}`);
	if (answered) return answered;
	for (;;) {
		const fresh = (await testRunIds(session)).find((id) => !before.has(id));
		if (fresh) return fresh;
		await sleep(POLL_MS);
	}
}

/** Polls the test run until n8n has finished it (the test's own timeout bounds the wait). */
async function finishedRun(session, testRunId) {
	for (;;) {
		const { data } = await session.request(
			'GET',
			`/rest/workflows/${WORKFLOW_ID}/test-runs/${testRunId}`,
		);
		if (!['new', 'running'].includes(data.status)) return data;
		await sleep(POLL_MS);
	}
}

const NAME =
	'demo 8 (Evaluations): n8n scores each dataset row of a BotDojo flow run; correctness and tools used as the flow answered';

module.exports = function registerEvaluationChecks(env) {
	// The Evaluation Trigger 4.7 reads a Data table: an n8n without it has neither.
	registerWhere(workflowMissingById(WORKFLOW_ID), NAME, () =>
		test(NAME, { timeout: 180_000 }, async () => {
			await setUpDatasetAsNpmStart(env.session);
			const mark = env.emu.requests.length;

			const testRunId = await startTestRun(env.session);
			const run = await finishedRun(env.session, testRunId);
			const { data: cases } = await env.session.request(
				'GET',
				`/rest/workflows/${WORKFLOW_ID}/test-runs/${testRunId}/test-cases`,
			);
			const shown = JSON.stringify({ run, cases });
			assert.equal(run.status, 'completed', shown);

			// One BotDojo run per row, each with the row's question and BotDojo's own evalOptions.
			const runs = env.requestsSince(mark, 'run');
			assert.deepEqual(
				runs.map((r) => r.body.body.text_input).sort(),
				ROWS.map((r) => r.question).sort(),
			);
			for (const request of runs) {
				assert.ok(request.path.includes('/flows/flow_agent/run'), request.path);
				assert.deepEqual(request.body.options.evalOptions, { runMode: 'skip' });
			}

			// The metrics n8n stored per case (runIndex is the dataset row), and their averages.
			// n8n 2.x numbers the cases by dataset row (runIndex); n8n 1.123 does not, and runs the
			// rows one after the other, in order.
			const byRow = [...cases]
				.sort((a, b) =>
					a.runIndex === undefined
						? Date.parse(a.runAt) - Date.parse(b.runAt)
						: a.runIndex - b.runIndex,
				)
				.map((c, i) => ({
					question: ROWS[c.runIndex ?? i]?.question,
					status: c.status,
					correctness: c.metrics?.correctness,
					tools_used: c.metrics?.tools_used,
				}));
			assert.deepEqual(
				byRow,
				EXPECTED_CASES.map((c) => ({ ...c, status: 'success' })),
				shown,
			);
			assert.equal(run.metrics.correctness, 2 / 3, shown);
			assert.equal(run.metrics.tools_used, 2.5 / 3, shown);
			env.log(
				`evaluation metrics: ${JSON.stringify(byRow)}; run averages ${JSON.stringify(run.metrics)}`,
			);
		}),
	);
};
