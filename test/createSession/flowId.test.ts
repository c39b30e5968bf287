/** Create Session's Flow ID (the shared resource locator); its 429/503 retries: test/transport/rateLimits.test.ts. */
import { runNode } from '../helpers/engine';
import { useEmulator } from '../helpers/emulator';

const env = useEmulator();

function createSession(flowId: unknown) {
	return {
		type: 'botDojoCreateSession',
		parameters: { flowId, dataMode: 'none' } as never,
	};
}

function rl(mode: 'id' | 'url') {
	return { __rl: true, mode, value: '={{ $json.flow }}' };
}

describe('Create Session: Flow ID', () => {
	it.each([
		['a plain string (workflows saved before the resource locator)', 'flow_echo'],
		['By ID', { __rl: true, mode: 'id', value: ' flow_echo ' }],
		[
			'By URL, a flow address',
			{
				__rl: true,
				mode: 'url',
				value: 'https://app.botdojo.com/acc_demo/projects/proj_demo/flows/flow_echo',
			},
		],
		[
			'By URL, an address with more after the id',
			{
				__rl: true,
				mode: 'url',
				value: 'https://app.botdojo.com/x/flows/flow_echo/edit?tab=api#top',
			},
		],
	])('reads %s', async (_kind, flowId) => {
		const { items, error } = await runNode({
			node: createSession(flowId),
			credentials: env.credentials,
		});
		expect(error).toBeUndefined();
		expect(items[0].json.flow_id).toBe('flow_echo');
		expect(env.emu.requestsTo('createSession').map((request) => request.body)).toEqual([
			{ params: ['flow_echo', {}] },
		]);
	});

	// Fixed values and values from expressions are checked alike; expressions here.
	it.each([
		['a blank plain string', '={{ $json.flow }}', '  ', /^Flow ID: is empty/],
		['a blank By ID', rl('id'), '  ', /^Flow ID: is empty/],
		[
			'an address in By ID',
			rl('id'),
			'https://app.botdojo.com/x/flows/flow_echo',
			/^Flow ID: "https:.*" is not a flow ID \(it has spaces or slashes\)/,
		],
		[
			'a By URL that is no flow address',
			rl('url'),
			'https://app.botdojo.com/x/projects/proj_demo',
			/^Flow ID \(By URL\): "https:.*proj_demo" is not the address of a flow/,
		],
	])(
		'refuses %s before any request, naming the parameter',
		async (_kind, flowId, flow, message) => {
			const { error } = await runNode({
				node: createSession(flowId),
				items: [{ json: { flow } }],
				credentials: env.credentials,
			});
			expect(error?.message).toMatch(message);
			expect(error?.description).toMatch(/flow/);
			expect(env.emu.requests).toHaveLength(0);
		},
	);
});
