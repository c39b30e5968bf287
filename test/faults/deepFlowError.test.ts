/**
 * A record with status "error" whose error is an object nested thousands of levels deep (a
 * broken or hostile BotDojo). Every node that words or simplifies such a record gives a worded
 * result, never "Maximum call stack size exceeded" with no description: Run Flow (streamed and
 * not), Export Requests (items and CSV file) and the Trigger.
 */
import type { INodeParameters } from 'n8n-workflow';

import { readBinary, runNode, runPoll } from '../helpers/engine';
import { API_KEY, useScriptedServer } from '../transport/scriptedServer';

const DEPTH = 20_000;
const deepError = `${'{"error":'.repeat(DEPTH)}"disk full ${API_KEY}"${'}'.repeat(DEPTH)}`;
const record = `{"id":"req_1","flow_id":"flow_1","status":"error","modified":"${new Date().toISOString()}","response":{"error":${deepError}}}`;
const NESTED = 'The flow reported an error nested too deeply to show';

const botdojo = useScriptedServer();
// An export page holding the record; the runs' tests answer with the record itself.
beforeEach(() => {
	botdojo.answer = (_, res) => {
		res.writeHead(200, { 'content-type': 'application/json' });
		res.end(`{"results":[${record}],"nextCursor":null,"hasMore":false}`);
	};
});

const run = (options: INodeParameters) => ({
	type: 'botDojoRunFlow',
	parameters: { flowId: 'flow_1', inputMode: 'message', message: 'Hi', options },
});

describe('a flow error nested too deeply to show', () => {
	it.each([
		['Streaming off', { streaming: false }, 'application/json', record],
		['streamed', {}, 'application/x-ndjson', `${record}\n`],
	])('Run Flow, %s: the flow-reported error, worded', async (_, options, type, body) => {
		botdojo.answer = (__, res) => {
			res.writeHead(200, { 'content-type': type });
			res.end(body);
		};
		const { items, error } = await runNode({
			node: run(options),
			credentials: botdojo.credentials,
		});
		expect(items).toEqual([]);
		expect(error?.message).toBe('The flow reported an error: no details given');
		expect(error?.description).toMatch(/^BotDojo ran flow "flow_1" \(flow request "req_1"\)/);
		expect(JSON.stringify(error)).not.toContain(API_KEY);
	});

	it('Run Flow with On Flow Error: Output the Record: the item says so', async () => {
		botdojo.answer = (__, res) => {
			res.writeHead(200, { 'content-type': 'application/json' });
			res.end(record);
		};
		const { items, error } = await runNode({
			node: run({ streaming: false, onFlowError: 'output' }),
			credentials: botdojo.credentials,
		});
		expect(error).toBeUndefined();
		expect(items[0].json.errorMessage).toBe(NESTED);
	});

	it('Export Requests, Simplify: the row says so', async () => {
		const { items, error } = await runNode({
			node: {
				type: 'botDojoExportRequests',
				typeVersion: 1.1,
				parameters: { operation: 'export', flowId: 'flow_1', returnAll: true },
			},
			credentials: botdojo.credentials,
		});
		expect(error).toBeUndefined();
		expect(items.map((item) => item.json.errorMessage)).toEqual([NESTED]);
	});

	it('Export Requests, CSV file: the row says so', async () => {
		const { items, error } = await runNode({
			node: {
				type: 'botDojoExportRequests',
				typeVersion: 1.1,
				parameters: { operation: 'export', flowId: 'flow_1', returnAll: true, output: 'csvFile' },
			},
			credentials: botdojo.credentials,
		});
		expect(error).toBeUndefined();
		const csv = (await readBinary(items[0].binary!.data)).toString('utf8');
		expect(csv.split('\r\n')[1]).toContain(`,${NESTED},`);
	});

	it('Trigger, Simplify: the event says so', async () => {
		const { output } = await runPoll({
			node: { type: 'botDojoTrigger', typeVersion: 1.1, parameters: { flowId: 'flow_1' } },
			credentials: botdojo.credentials,
			mode: 'manual',
		});
		expect(output?.[0].map((item) => item.json.errorMessage)).toEqual([NESTED]);
	});
});
