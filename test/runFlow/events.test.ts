/** BotDojo Run Flow: what the streamed events become, the event filter, flows that fail. */
import { useEmulator } from '../helpers/emulator';
import { message, runBodies, runFlow } from '../helpers/runFlow';

const env = useEmulator();

const ALL_TAGS = [
	'onFlowStart',
	'onLog',
	'onIntermediateStepUpdate',
	'onToolStart',
	'onToolEnd',
	'onToolError',
	'onNewToken',
	'onFlowEnd',
];

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe('BotDojo Run Flow: streamed events', () => {
	it('collects each of the 8 event tags', async () => {
		const { items, error } = await runFlow(env, {
			parameters: message('flow_tools', 'weather', {
				options: { output: 'raw', includeEvents: true },
			}),
		});
		expect(error).toBeUndefined();
		const tags = new Set((items[0].json.events as Array<{ tag: string }>).map((e) => e.tag));
		expect([...tags].sort()).toEqual([...ALL_TAGS].sort());
	});

	it('concatenates the tokens into text and pairs tool start/end/error into toolCalls', async () => {
		const { items } = await runFlow(env, { parameters: message('flow_tools', 'weather') });
		const json = items[0].json;
		expect(json.text).toBe(
			'I searched for "weather" and found 2 hits; the calculator failed (Division by zero).',
		);
		const [search, calculator] = json.toolCalls as Array<Record<string, unknown>>;
		expect(search).toMatchObject({
			name: 'search',
			input: { query: 'weather' },
			output: { hits: 2 },
			status: 'complete',
		});
		expect(calculator).toMatchObject({
			name: 'calculator',
			input: { expression: '1/0' },
			error: 'Division by zero',
			status: 'error',
		});
		for (const call of [search, calculator]) {
			expect(call.startedAt).toMatch(ISO);
			expect(call.endedAt).toMatch(ISO);
			expect(call.durationMs).toBeGreaterThanOrEqual(0);
		}
		expect(json).not.toHaveProperty('logs');
	});

	it.each([
		['flow_tools', 'our first shape'],
		['flow_tools_real', 'the real shape'],
	])(
		'%s (%s): the same toolCalls streamed and not, naming tool, parsed arguments, result and status',
		async (flowId) => {
			const only = (calls: unknown) =>
				(calls as Array<Record<string, unknown>>).map(({ name, input, output, error, status }) => ({
					name,
					input,
					output,
					error,
					status,
				}));
			const streamed = await runFlow(env, { parameters: message(flowId, 'weather') });
			const blocking = await runFlow(env, {
				parameters: message(flowId, 'weather', { options: { streaming: false } }),
			});
			const expected = [
				{ name: 'search', input: { query: 'weather' }, output: { hits: 2 }, status: 'complete' },
				{
					name: 'calculator',
					input: { expression: '1/0' },
					error: 'Division by zero',
					status: 'error',
				},
			];
			expect(only(streamed.items[0].json.toolCalls)).toEqual(expected);
			expect(only(blocking.items[0].json.toolCalls)).toEqual(expected);
		},
	);

	it('the final record decides the text: preamble and tool-argument tokens are not the answer', async () => {
		const { items } = await runFlow(env, {
			parameters: message('flow_agent', 'weather', {
				options: { output: 'raw', includeEvents: true },
			}),
		});
		const json = items[0].json;
		const events = json.events as Array<{ tag: string; data: Record<string, unknown> }>;
		// The stream did carry other tokens: preamble words and tool-argument updates.
		expect(
			events.some((event) => event.tag === 'onNewToken' && event.data.toolArguments !== undefined),
		).toBe(true);
		const simplified = await runFlow(env, { parameters: message('flow_agent', 'weather') });
		expect(simplified.items[0].json.text).toBe('Found 2 hits for "weather".');
	});

	it('puts intermediate steps into steps (raw) and logs into logs only when asked', async () => {
		const { items } = await runFlow(env, {
			parameters: message('flow_tools', 'weather', { options: { output: 'raw' } }),
		});
		const steps = items[0].json.steps as Array<Record<string, unknown>>;
		expect(steps).toHaveLength(4);
		expect(steps.map((step) => [step.toolName, step.status])).toEqual([
			['search', 'start'],
			['search', 'complete'],
			['calculator', 'start'],
			['calculator', 'error'],
		]);
		expect(items[0].json).not.toHaveProperty('logs');

		const withLogs = await runFlow(env, {
			parameters: message('flow_tools', 'weather', { options: { includeLogs: true } }),
		});
		expect(withLogs.items[0].json.logs).toEqual([
			expect.objectContaining({ level: 'info', message: 'Running flow flow_tools (release 1)' }),
		]);
	});

	it('with the event filter, only the chosen events arrive and the text comes from the result', async () => {
		const { items } = await runFlow(env, {
			parameters: message('flow_tools', 'weather', {
				options: {
					events: ['onToolStart', 'onToolEnd', 'onToolError'],
					output: 'raw',
					includeEvents: true,
				},
			}),
		});
		expect(runBodies(env)[0].options?.stream_events).toEqual([
			'onToolStart',
			'onToolEnd',
			'onToolError',
		]);
		const json = items[0].json;
		const tags = (json.events as Array<{ tag: string }>).map((event) => event.tag);
		expect(tags).toEqual(['onToolStart', 'onToolEnd', 'onToolStart', 'onToolError']);
		expect((json.toolCalls as unknown[]).length).toBe(2);
		expect(json.steps).toEqual([]);
		expect((json.response as { text_output: string }).text_output).toMatch(/^I searched/);

		const simplified = await runFlow(env, {
			parameters: message('flow_tools', 'weather', { options: { events: ['onFlowEnd'] } }),
		});
		expect(simplified.items[0].json.text).toMatch(/^I searched for "weather"/);
	});

	it('without streaming, tool calls come from the record', async () => {
		const { items } = await runFlow(env, {
			parameters: message('flow_tools', 'weather', { options: { streaming: false } }),
		});
		expect(items[0].json.toolCalls).toEqual([
			expect.objectContaining({ name: 'search', status: 'complete', output: { hits: 2 } }),
			expect.objectContaining({ name: 'calculator', status: 'error', error: 'Division by zero' }),
		]);
	});

	it('keeps multi-byte characters that the stream splits across chunks', async () => {
		env.emu.injectFault('split-utf8', { endpoint: 'run' });
		const text = 'Grüße aus Köln – 👋🏽 你好 ½';
		const { items, error } = await runFlow(env, { parameters: message('flow_echo', text) });
		expect(error).toBeUndefined();
		expect(items[0].json.text).toBe(`Echo #1: ${text}`);
	});

	it('reads a long stream whole (5,000 tokens)', async () => {
		const { items } = await runFlow(env, {
			parameters: { flowId: 'flow_big', inputMode: 'json', bodyJson: '{"tokens": 5000}' },
		});
		const text = items[0].json.text as string;
		expect(text).toHaveLength(5000 * 10);
		expect(text.startsWith('tok000000 tok000001 ')).toBe(true);
		expect(text.endsWith('tok004999 ')).toBe(true);
	});
});

describe('BotDojo Run Flow: a flow that reports status "error"', () => {
	it('fails the item by default, saying the flow ran and retrying is not safe', async () => {
		const { error } = await runFlow(env, { parameters: message('flow_error', 'Hi') });
		expect(error?.message).toBe('The flow reported an error: The model provider returned an error');
		expect(error?.description).toMatch(/ended with status "error"/);
		expect(error?.description).toMatch(/Not safe to retry blindly/);
		expect(env.emu.requestsTo('run')).toHaveLength(1);
	});

	it('outputs the record when asked, so that the workflow can branch', async () => {
		for (const streaming of [true, false]) {
			const { items, error } = await runFlow(env, {
				parameters: message('flow_error', 'Hi', { options: { onFlowError: 'output', streaming } }),
			});
			expect(error).toBeUndefined();
			expect(items[0].json).toMatchObject({
				status: 'error',
				errorMessage: 'The model provider returned an error',
				text: 'Let me think about',
			});
			// `error` would make n8n treat the item as a failed node.
			expect(items[0].json).not.toHaveProperty('error');
		}
	});
});
