/**
 * Run Flow's `intermediateSteps`: the tool calls in the shape n8n's AI Agent gives them, which
 * the Evaluation node's "Tools Used" metric reads (`intermediateSteps[].action.tool`), beside
 * the unchanged `toolCalls`; BotDojo's own evalOptions still reach the run.
 */
import {
	EVALUATION_NODE_TYPE,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeType,
} from 'n8n-workflow';

import { nodeTypes } from '../helpers/engine';
import { useEmulator } from '../helpers/emulator';
import { message, runBodies, runFlow, type RunFlowSettings } from '../helpers/runFlow';

const env = useEmulator();

/** Passes its input on: a node after Run Flow in the graph. */
class PassThrough implements INodeType {
	description = {
		displayName: 'Pass Through',
		name: 'passThrough',
		group: ['transform'],
		version: 1,
		description: 'Test node',
		defaults: { name: 'Pass Through' },
		inputs: ['main'],
		outputs: ['main'],
		properties: [],
	} as unknown as INodeType['description'];

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return [this.getInputData()];
	}
}
nodeTypes.register('test.passThrough', new PassThrough());

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

	describe('a flow without tools (issue 27 §3): the empty list only where an Evaluation reads it', () => {
		// n8n's Evaluation node is in n8n-nodes-base, not in this package's dev dependencies: here a
		// pass-through node of its type name stands in for it in the graph. The real node and its
		// Tools Used metric run in the real-n8n check test/e2e/checks-evaluation.js.
		beforeAll(() => nodeTypes.register(EVALUATION_NODE_TYPE, new PassThrough()));
		const run = (settings: Omit<RunFlowSettings, 'parameters'> = {}) =>
			runFlow(env, { typeVersion: 1.1, parameters: message('flow_echo', 'Hi'), ...settings });

		it('an ordinary run leaves it out, as the other empty lists (n8n shows "[empty array]" in red)', async () => {
			const { items, error } = await run();
			expect(error).toBeUndefined();
			expect(items[0].json).not.toHaveProperty('intermediateSteps');
			expect(items[0].json).not.toHaveProperty('toolCalls');
		});

		it("a run in n8n's evaluation mode (the Evaluations tab) keeps it, so Tools Used scores 0", async () => {
			const { items, error } = await run({ mode: 'evaluation' });
			expect(error).toBeUndefined();
			expect(items[0].json.intermediateSteps).toEqual([]);
		});

		it('a manual run keeps it when an Evaluation node follows, also further down', async () => {
			for (const next of [
				[{ name: 'Evaluation', type: EVALUATION_NODE_TYPE }],
				[
					{ name: 'Between', type: 'test.passThrough' },
					{ name: 'Evaluation', type: EVALUATION_NODE_TYPE },
				],
			]) {
				const { items, error } = await run({ next });
				expect(error).toBeUndefined();
				expect(items[0].json.intermediateSteps).toEqual([]);
			}
		});

		it('leaves it out when the Evaluation node that follows is disabled, or another node follows', async () => {
			for (const next of [
				[{ name: 'Evaluation', type: EVALUATION_NODE_TYPE, disabled: true }],
				[{ name: 'Between', type: 'test.passThrough' }],
			]) {
				const { items, error } = await run({ next });
				expect(error).toBeUndefined();
				expect(items[0].json).not.toHaveProperty('intermediateSteps');
			}
		});

		it('node version 1 keeps it, as workflows saved with it expect', async () => {
			const { items } = await run({ typeVersion: 1 });
			expect(items[0].json.intermediateSteps).toEqual([]);
		});
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
