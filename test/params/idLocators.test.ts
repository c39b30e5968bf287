/**
 * Flow ID (By ID / By URL) and Index ID (By ID) as resource locators on every node that has
 * them; values saved as plain strings before the locator keep working. Create Session's Flow ID
 * has its own cases in test/createSession/flowId.test.ts.
 */
import type { IDataObject } from 'n8n-workflow';

import { runNode, runPoll } from '../helpers/engine';
import { useEmulator } from '../helpers/emulator';
import { expectInputError } from './inputError';

const env = useEmulator();

const FLOW_URL = 'https://app.botdojo.com/acc_demo/projects/proj_demo/flows/flow_echo?tab=api';

const flowIdValues: Array<[string, unknown]> = [
	['a plain string (saved before the locator)', 'flow_echo'],
	['By ID', { __rl: true, mode: 'id', value: 'flow_echo' }],
	['By URL', { __rl: true, mode: 'url', value: FLOW_URL }],
];

/** Each node with a Flow ID: its parameters, and the flow id BotDojo was asked about. */
const flowNodes: Array<{
	node: string;
	type: string;
	parameters: IDataObject;
	flowIdSent: () => unknown[];
}> = [
	{
		node: 'Export Requests › Export',
		type: 'botDojoExportRequests',
		parameters: { operation: 'export', returnAll: true },
		flowIdSent: () => env.emu.requestsTo('export').map((r) => r.body.params[0]),
	},
	{
		node: 'Export Requests › Get Many by Session',
		type: 'botDojoExportRequests',
		parameters: { operation: 'getBySession', sessionId: 'ses_x' },
		flowIdSent: () => env.emu.requestsTo('loadByFlowSession').map((r) => r.body.params[0]),
	},
	{
		node: 'Run Flow',
		type: 'botDojoRunFlow',
		parameters: { inputMode: 'message', message: 'Hi', options: { streaming: false } },
		flowIdSent: () =>
			env.emu.requestsTo('run').map((r) => /\/flows\/([^/]+)\/run/.exec(r.path)?.[1]),
	},
];

describe.each(flowNodes)('$node: Flow ID', ({ type, parameters, flowIdSent }) => {
	it.each(flowIdValues)('reads %s', async (_kind, flowId) => {
		const { error } = await runNode({
			node: { type, parameters: { ...parameters, flowId } as never },
			credentials: env.credentials,
		});
		expect(error).toBeUndefined();
		expect(flowIdSent()).toEqual(['flow_echo']);
	});

	it('refuses a By URL that is no flow address, naming the parameter and the item, before any request', async () => {
		const { error } = await runNode({
			node: {
				type,
				parameters: {
					...parameters,
					flowId: { __rl: true, mode: 'url', value: '={{ $json.address }}' },
				} as never,
			},
			items: [
				{ json: { address: FLOW_URL } },
				{ json: { address: 'https://app.botdojo.com/acc_demo/projects/proj_demo' } },
			],
			credentials: env.credentials,
		});
		expectInputError(
			error,
			'Flow ID (By URL)',
			1,
			/"https:.*proj_demo" is not the address of a flow/,
		);
		expect(error?.description).toContain(
			'https://app.botdojo.com/acc_demo/projects/proj_demo/flows/flow_echo',
		);
		expect(env.emu.requests).toHaveLength(0);
	});
});

describe('Trigger: Flow ID', () => {
	it.each(flowIdValues)('reads %s', async (_kind, flowId) => {
		env.emu.seedFlowRequests('flow_echo', 1, { start: Date.now() - 1000 });
		const { output } = await runPoll({
			node: { type: 'botDojoTrigger', parameters: { flowId, statuses: 'both' } as never },
			credentials: env.credentials,
			mode: 'manual',
		});
		expect(output?.[0]).toHaveLength(1);
		expect(env.emu.requestsTo('export').map((r) => r.body.params[0])).toEqual(['flow_echo']);
	});

	it('refuses a By URL that is no flow address, naming the parameter, before any request', async () => {
		await expect(
			runPoll({
				node: {
					type: 'botDojoTrigger',
					parameters: {
						flowId: { __rl: true, mode: 'url', value: 'https://app.botdojo.com/' },
					} as never,
				},
				credentials: env.credentials,
				mode: 'manual',
			}),
		).rejects.toThrow(
			/^Flow ID \(By URL\): "https:\/\/app.botdojo.com\/" is not the address of a flow/,
		);
		expect(env.emu.requests).toHaveLength(0);
	});
});

describe('Query Index: Index ID', () => {
	it.each([
		['a plain string (saved before the locator)', 'idx_docs'],
		['By ID', { __rl: true, mode: 'id', value: ' idx_docs ' }],
	])('reads %s', async (_kind, indexId) => {
		const { items, error } = await runNode({
			node: { type: 'botDojoQueryIndex', parameters: { operation: 'getStatus', indexId } as never },
			credentials: env.credentials,
		});
		expect(error).toBeUndefined();
		expect(items[0].json.id).toBe('idx_docs');
		expect(env.emu.requestsTo('getStatus').map((r) => r.body.params)).toEqual([['idx_docs']]);
	});

	it('refuses an address given as the ID, naming the parameter and the item, before any request', async () => {
		const { error } = await runNode({
			node: {
				type: 'botDojoQueryIndex',
				parameters: {
					operation: 'getStatus',
					indexId: { __rl: true, mode: 'id', value: '={{ $json.index }}' },
				} as never,
			},
			items: [
				{ json: { index: 'idx_docs' } },
				{ json: { index: 'https://app.botdojo.com/x/idx_docs' } },
			],
			credentials: env.credentials,
		});
		expectInputError(error, 'Index ID', 1, /is not an index ID \(it has spaces or slashes\)/);
		expect(env.emu.requests).toHaveLength(0);
	});
});
