'use strict';
/**
 * Demo 6: the published BotDojo Trigger workflow polls the emulator every minute and starts an
 * execution for a request that finished after it was published. Runs last, so the wait for the
 * poll overlaps the other checks.
 */
const assert = require('node:assert/strict');
const path = require('node:path');
const { test } = require('node:test');

const { INSTALL_DIR } = require('../../scripts/n8n-local');

/** n8n's REST API returns execution data in the "flatted" format; n8n ships the parser. */
function parseFlatted(text) {
	// Required here, not at load: before the first run, n8n is not installed yet.
	return require(path.join(INSTALL_DIR, 'node_modules', 'flatted')).parse(text);
}

/** Runs flow_echo on the emulator directly, as another BotDojo client would. */
async function runFlowOnEmulator(emu, text) {
	const response = await fetch(
		`${emu.baseUrl}/accounts/${emu.accountId}/projects/${emu.projectId}/flows/flow_echo/run`,
		{
			method: 'POST',
			headers: { authorization: emu.keys.project, 'content-type': 'application/json' },
			body: JSON.stringify({ body: { text_input: text }, options: {} }),
		},
	);
	assert.equal(response.status, 200, await response.clone().text());
	return await response.json();
}

async function summariesOfTriggerExecutions(session) {
	const filter = encodeURIComponent(JSON.stringify({ workflowId: 'bdDemoTrigger' }));
	const { data } = await session.request('GET', `/rest/executions?filter=${filter}`);
	const summaries = [];
	for (const execution of data.results) {
		const { data: full } = await session.request('GET', `/rest/executions/${execution.id}`);
		const runData = parseFlatted(full.data).resultData.runData;
		const items = runData.Summary?.[0]?.data?.main?.[0] ?? [];
		summaries.push(...items.map((item) => ({ ...item.json, executionStatus: execution.status })));
	}
	return summaries;
}

let question;

/** The trigger's saved poll state (its high-water mark), from the workflow's static data. */
async function pollState(session) {
	const { data } = await session.request('GET', '/rest/workflows/bdDemoTrigger');
	return data.staticData?.['node:BotDojo Trigger'];
}

/** Registered first: a BotDojo request finishes after the trigger has recorded where it starts. */
function registerTriggerStart(env) {
	test(
		'demo 6 (trigger), part 1: a flow request finishes after the poller recorded its start',
		{ timeout: 120_000 },
		async () => {
			// The first poll only records "now"; a request from before that moment is history,
			// not news. Wait for that mark (the activation's poll or the first minute's).
			const deadline = Date.now() + 90_000;
			let state = await pollState(env.session);
			while (!state?.highWaterMark && Date.now() < deadline) {
				await new Promise((resolve) => setTimeout(resolve, 2000));
				state = await pollState(env.session);
			}
			assert.ok(state?.highWaterMark, 'the published trigger saved its poll state');
			await new Promise((resolve) => setTimeout(resolve, 50));
			question = `Trigger check ${new Date().toISOString()}`;
			const record = await runFlowOnEmulator(env.emu, question);
			assert.ok(Date.parse(record.modified) > Date.parse(state.highWaterMark));
		},
	);
}

/** Registered last: by then the minute poll has most likely run. */
function registerTriggerCheck(env) {
	test(
		'demo 6 (trigger), part 2: the poll started an execution with that request',
		{ timeout: 200_000 },
		async () => {
			assert.ok(question, 'part 1 ran');
			const deadline = Date.now() + 150_000;
			let found;
			while (!found && Date.now() < deadline) {
				await new Promise((resolve) => setTimeout(resolve, 3000));
				found = (await summariesOfTriggerExecutions(env.session)).find(
					(s) => s.question === question,
				);
			}
			assert.ok(found, 'an execution of the trigger workflow holds the new request within 150 s');
			assert.equal(found.executionStatus, 'success');
			assert.equal(found.status, 'complete');
			assert.equal(found.answer, `Echo #1: ${question}`);
			assert.match(found.requestId, /^req_/);
			assert.ok(Date.parse(found.finishedAt) > 0);
			const exportsByTrigger = env.emu.requests.filter(
				(r) => r.endpoint === 'export' && r.body?.params?.[0] === 'flow_echo',
			);
			assert.ok(exportsByTrigger.length >= 2, 'the trigger polled the emulator at least twice');
		},
	);
}

module.exports = { registerTriggerStart, registerTriggerCheck };
