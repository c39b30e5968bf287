'use strict';
/**
 * Issue 21 §2, demo 8: n8n's own Evaluations score a BotDojo flow. The dataset is an n8n Data
 * table made through n8n's REST API; the evaluation starts and is read back through the REST API
 * the Evaluations tab uses (POST …/test-runs/new, GET …/test-runs/:id, …/test-cases), and the
 * metrics n8n stored are the ones the emulator's flow_agent gives: it always calls `search` and
 * answers `Found 2 hits for "<question>".`.
 */
const assert = require('node:assert/strict');
const { test } = require('node:test');

const { registerWhere, workflowMissingById } = require('./n8nFeatures');

const WORKFLOW_ID = 'bdDemoEvaluation';
const TRIGGER = 'When fetching a dataset row';
const POLL_MS = 500;

const answerOf = (question) => `Found 2 hits for "${question}".`;

/** Three rows whose metrics differ: all right; a tool it never calls; a wrong expected answer. */
const ROWS = [
	{
		question: 'refund policy',
		expected_answer: answerOf('refund policy'),
		expected_tools: 'search',
	},
	{
		question: 'opening hours',
		expected_answer: answerOf('opening hours'),
		expected_tools: 'search, calculator',
	},
	{
		question: 'shipping to Canada',
		expected_answer: 'No hits for "shipping to Canada".',
		expected_tools: 'search',
	},
];
// Per row: correctness (exact match) and tools used (share of the expected tools called).
const EXPECTED_CASES = [
	{ question: 'refund policy', correctness: 1, tools_used: 1 },
	{ question: 'opening hours', correctness: 1, tools_used: 0.5 },
	{ question: 'shipping to Canada', correctness: 0, tools_used: 1 },
];

/** Creates the dataset as a Data table of the owner's project, and returns its id. */
async function createDataset(session) {
	const project = await session.request('GET', '/rest/projects/personal');
	const base = `/rest/projects/${project.data.id}/data-tables`;
	const columns = ['question', 'expected_answer', 'expected_tools'].map((name) => ({
		name,
		type: 'string',
	}));
	const table = await session.request('POST', base, {
		name: `BotDojo eval dataset ${Date.now()}`,
		columns,
	});
	// returnType: n8n 2.x defaults it to 'count'; n8n 1.123 requires it.
	await session.request('POST', `${base}/${table.data.id}/insert`, {
		data: ROWS,
		returnType: 'count',
	});
	return table.data.id;
}

/** Points the demo's Evaluation Trigger at the dataset, as a user does by choosing it. */
async function chooseDataset(session, dataTableId) {
	const { data: workflow } = await session.request('GET', `/rest/workflows/${WORKFLOW_ID}`);
	const nodes = workflow.nodes.map((node) =>
		node.name === TRIGGER
			? {
					...node,
					parameters: {
						...node.parameters,
						dataTableId: { __rl: true, mode: 'id', value: dataTableId },
					},
				}
			: node,
	);
	await session.request('PATCH', `/rest/workflows/${WORKFLOW_ID}`, {
		nodes,
		connections: workflow.connections,
		versionId: workflow.versionId,
	});
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
			const dataTableId = await createDataset(env.session);
			await chooseDataset(env.session, dataTableId);
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
