import { runNode } from '../helpers/engine';
import { useEmulator } from '../helpers/emulator';

const env = useEmulator();

function createSession(
	parameters: Record<string, unknown>,
	extra: { continueOnFail?: boolean } = {},
) {
	return { type: 'botDojoCreateSession', parameters: parameters as never, ...extra };
}

const fieldsStores = {
	store: [
		{
			name: 'customer',
			variables: {
				variable: [
					{ name: 'profile', value: '{"name": "Ada", "plan": "pro"}' },
					{ name: 'greeting', value: 'Hello Ada' },
					{ name: 'visits', value: '3' },
				],
			},
		},
		{ name: 'empty', variables: {} },
	],
};

describe('BotDojo Create Session', () => {
	it('creates a session from stores entered as fields', async () => {
		const { items, error } = await runNode({
			node: createSession({ flowId: 'flow_echo', dataMode: 'fields', stores: fieldsStores }),
			credentials: env.credentials,
		});
		expect(error).toBeUndefined();
		const expectedState = {
			customer: {
				variables: { profile: { name: 'Ada', plan: 'pro' }, greeting: 'Hello Ada', visits: 3 },
			},
			empty: { variables: {} },
		};
		expect(env.emu.requestsTo('createSession')[0].body).toEqual({
			params: ['flow_echo', expectedState],
		});
		expect(items).toHaveLength(1);
		expect(items[0].json).toMatchObject({
			flow_id: 'flow_echo',
			sessionState: expectedState,
			account_id: 'acc_demo',
			project_id: 'proj_demo',
		});
		expect(items[0].json.id).toMatch(/\S+/);
		expect(items[0].pairedItem).toEqual({ item: 0 });
	});

	it('takes store and variable names that objects inherit (constructor, __proto__) as names', async () => {
		const { error } = await runNode({
			node: createSession({
				flowId: 'flow_echo',
				dataMode: 'fields',
				stores: {
					store: [
						{ name: 'constructor', variables: { variable: [{ name: '__proto__', value: '1' }] } },
						{ name: 'toString', variables: {} },
					],
				},
			}),
			credentials: env.credentials,
		});
		expect(error).toBeUndefined();
		const state = env.emu.requestsTo('createSession')[0].body.params[1] as Record<
			string,
			{ variables: object }
		>;
		expect(Object.keys(state)).toEqual(['constructor', 'toString']);
		expect(Object.entries(state['constructor'].variables)).toEqual([['__proto__', 1]]);
	});

	it('creates a session from JSON, one per item, that BotDojo keeps under the returned id', async () => {
		const { items, error } = await runNode({
			node: createSession({
				flowId: '={{ $json.flow }}',
				dataMode: 'json',
				sessionDataJson:
					'={{ JSON.stringify({ user: { variables: { name: { first: $json.name } } } }) }}',
			}),
			items: [
				{ json: { flow: 'flow_echo', name: 'Ada' } },
				{ json: { flow: 'flow_tools', name: 'Grace' } },
			],
			credentials: env.credentials,
		});
		expect(error).toBeUndefined();
		expect(items.map((item) => [item.json.flow_id, item.json.sessionState])).toEqual([
			['flow_echo', { user: { variables: { name: { first: 'Ada' } } } }],
			['flow_tools', { user: { variables: { name: { first: 'Grace' } } } }],
		]);
		expect(items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
		expect(env.emu.sessions.has(items[0].json.id as string)).toBe(true);
	});

	it('sends an empty session data object when None is chosen', async () => {
		const { items } = await runNode({
			node: createSession({ flowId: 'flow_echo', dataMode: 'none' }),
			credentials: env.credentials,
		});
		expect(env.emu.requestsTo('createSession')[0].body).toEqual({ params: ['flow_echo', {}] });
		expect(items[0].json.sessionState).toEqual({});
	});

	it.each([
		[{ flowId: '  ', dataMode: 'none' }, 'Flow ID: is empty'],
		[
			{ flowId: 'flow_echo', dataMode: 'json', sessionDataJson: '{"a": ' },
			/^Session Data \(JSON\): is not valid JSON/,
		],
		[
			{ flowId: 'flow_echo', dataMode: 'json', sessionDataJson: '["a"]' },
			/must be a JSON object but is an array/,
		],
		[
			{ flowId: 'flow_echo', dataMode: 'json', sessionDataJson: '{"customer": {"name": "Ada"}}' },
			'Session Data (JSON) › "customer": must be an object with a "variables" object',
		],
		[
			{ flowId: 'flow_echo', dataMode: 'fields', stores: { store: [{ name: '', variables: {} }] } },
			/Store Name: is empty/,
		],
		[
			{
				flowId: 'flow_echo',
				dataMode: 'fields',
				stores: {
					store: [{ name: 'a', variables: { variable: [{ name: 'x', value: '{oops' }] } }],
				},
			},
			/"a" › variable 1 › Value: looks like JSON but is not valid/,
		],
	])('refuses bad input before any request (%#)', async (parameters, message) => {
		const { error } = await runNode({
			node: createSession(parameters),
			credentials: env.credentials,
		});
		expect(error?.message).toEqual(
			typeof message === 'string' ? message : expect.stringMatching(message),
		);
		expect(error?.description).toBeTruthy();
		expect(env.emu.requests).toHaveLength(0);
	});

	it('names the flow when it does not exist', async () => {
		const { error } = await runNode({
			node: createSession({ flowId: 'flow_missing', dataMode: 'none' }),
			credentials: env.credentials,
		});
		expect(error?.message).toMatch(/could not find.*flow_missing/);
		expect(error?.description).toBe('Check the Flow ID in the node ("flow_missing").');
	});

	it('keeps the other items with Continue On Fail', async () => {
		const { items, error } = await runNode({
			node: createSession(
				{ flowId: '={{ $json.flow }}', dataMode: 'none' },
				{ continueOnFail: true },
			),
			items: [
				{ json: { flow: 'flow_echo' } },
				{ json: { flow: '' } },
				{ json: { flow: 'flow_missing' } },
				{ json: { flow: 'flow_tools' } },
			],
			credentials: env.credentials,
		});
		expect(error).toBeUndefined();
		expect(items.map((item) => item.json.flow_id ?? item.json.error)).toEqual([
			'flow_echo',
			'Flow ID: is empty',
			expect.stringMatching(/could not find/),
			'flow_tools',
		]);
		expect(items.map((item) => item.pairedItem)).toEqual([
			{ item: 0 },
			{ item: 1 },
			{ item: 2 },
			{ item: 3 },
		]);
	});
});
