/**
 * Run Flow's `intermediateSteps`: the tool calls in the shape n8n's AI Agent gives them, which
 * the Evaluation node's "Tools Used" metric reads (`intermediateSteps[].action.tool`), beside
 * the unchanged `toolCalls`; BotDojo's own evalOptions still reach the run.
 */
import { useEmulator } from '../helpers/emulator';
import { message, runBodies, runFlow } from '../helpers/runFlow';

const env = useEmulator();

const SEARCH_AND_CALCULATOR = [
	{ action: { tool: 'search', toolInput: { query: 'weather' } }, observation: { hits: 2 } },
	{
		action: { tool: 'calculator', toolInput: { expression: '1/0' } },
		observation: 'Division by zero',
	},
];

describe('BotDojo Run Flow: intermediateSteps for n8n Evaluations', () => {
	it.each([
		['flow_tools', 'streamed', {}],
		['flow_tools', 'not streamed', { streaming: false }],
		['flow_tools_real', 'streamed', {}],
		['flow_tools_real', 'not streamed', { streaming: false }],
	])('%s (%s): one step per tool call, named as the tool', async (flowId, _, options) => {
		const { items, error } = await runFlow(env, {
			parameters: message(flowId, 'weather', { options }),
		});
		expect(error).toBeUndefined();
		const json = items[0].json;
		expect(json.intermediateSteps).toEqual(SEARCH_AND_CALCULATOR);
		// toolCalls stay as they were.
		expect(json.toolCalls).toEqual([
			expect.objectContaining({ name: 'search', input: { query: 'weather' }, status: 'complete' }),
			expect.objectContaining({ name: 'calculator', error: 'Division by zero', status: 'error' }),
		]);
	});

	it('the raw output carries them too', async () => {
		const { items } = await runFlow(env, {
			parameters: message('flow_tools', 'weather', { options: { output: 'raw' } }),
		});
		expect(items[0].json.intermediateSteps).toEqual(SEARCH_AND_CALCULATOR);
		expect((items[0].json.toolCalls as unknown[]).length).toBe(2);
	});

	it('a flow without tools gives an empty list, which Tools Used scores 0 (a missing one fails it)', async () => {
		const { items } = await runFlow(env, { parameters: message('flow_echo', 'Hi') });
		expect(items[0].json.intermediateSteps).toEqual([]);
	});

	it('names follow n8n\'s tool-name rule, so "Web Search" matches an expected "Web Search"', async () => {
		env.emu.defineFlow('flow_labelled_tool', {
			shape: 'real',
			tools: () => [{ toolName: 'Web Search (beta)', input: { q: 'x' }, output: 'found' }],
			answer: () => 'done',
		});
		const { items } = await runFlow(env, { parameters: message('flow_labelled_tool', 'Hi') });
		expect(items[0].json.intermediateSteps).toEqual([
			{ action: { tool: 'Web_Search_beta_', toolInput: { q: 'x' } }, observation: 'found' },
		]);
		expect(items[0].json.toolCalls).toEqual([
			expect.objectContaining({ name: 'Web Search (beta)' }),
		]);
	});

	it("BotDojo's own evalOptions still reach the run", async () => {
		const { items } = await runFlow(env, {
			parameters: message('flow_tools', 'weather', {
				options: { evalRunMode: 'block', evalRuns: { run: [{ flowEvalId: 'flow_eval_tone' }] } },
			}),
		});
		expect(runBodies(env)[0].options?.evalOptions).toEqual({
			runMode: 'block',
			runs: [{ flowEvalId: 'flow_eval_tone' }],
		});
		expect(items[0].json.intermediateSteps).toEqual(SEARCH_AND_CALCULATOR);
	});
});
