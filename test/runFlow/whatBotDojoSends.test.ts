/**
 * What BotDojo's official SDK shows the service sends (issue 36; botdojo-ai/botdojo-chat-sdk
 * BotDojoConnector.ts, chatReducer.ts, BotDojoChatProvider.tsx): the SDK's event names, token
 * kinds, tool arguments and results in canvas.canvasData, unfinished records, canvas markup and
 * suggestedQuestions; and what Run Flow shows as an AI Agent's tool.
 */
import { NodeHelpers, type INode, type INodeProperties, type INodeType } from 'n8n-workflow';

import { nodeTypes, runNode } from '../helpers/engine';
import { useEmulator } from '../helpers/emulator';
import { PACKAGE, toolVariant } from '../helpers/nodeTypes';
import { message, runBodies, runFlow } from '../helpers/runFlow';
import { useScriptedServer } from '../transport/scriptedServer';

const env = useEmulator();
const botdojo = useScriptedServer();

type Chunks = Awaited<ReturnType<typeof runFlow>>['chunks'];

/** The text n8n's chat shows: the forwarded items joined. */
const chatText = (chunks: Chunks) =>
	chunks
		.filter(({ chunk }) => chunk.type === 'item')
		.map(({ chunk }) => chunk.content)
		.join('');

const tags = (events: unknown) => (events as Array<{ tag: string }>).map((event) => event.tag);

describe('Flow Started/Finished under either name', () => {
	it('asks for both spellings and outputs the events under the name they arrived with', async () => {
		const options = { events: ['onFlowStart', 'onFlowEnd'], includeEvents: true, output: 'raw' };
		const sdk = await runFlow(env, { parameters: message('flow_sdk', 'weather', { options }) });
		expect(runBodies(env)[0].options?.stream_events).toEqual([
			'onFlowStart',
			'onFlowRequestStart',
			'onFlowEnd',
			'onFlowRequestEnd',
		]);
		expect(tags(sdk.items[0].json.events)).toEqual(['onFlowRequestStart', 'onFlowRequestEnd']);
		const rest = await runFlow(env, { parameters: message('flow_tools', 'weather', { options }) });
		expect(tags(rest.items[0].json.events)).toEqual(['onFlowStart', 'onFlowEnd']);
	});
});

describe('token kinds (updateType)', () => {
	it('function tokens reach neither the chat nor the answer, and are the tool calls’ argumentText', async () => {
		const { items, chunks, error } = await runFlow(env, {
			parameters: message('flow_sdk', 'weather'),
			streaming: true,
		});
		expect(error).toBeUndefined();
		const answer = 'Found 2 hits for "weather" and drew a chart.';
		expect(chatText(chunks)).toBe(answer);
		expect(items[0].json.text).toBe(answer);
		const calls = items[0].json.toolCalls as Array<Record<string, unknown>>;
		expect(calls.map(({ name, argumentText }) => [name, argumentText])).toEqual([
			['search', '{"query":"weather"}'],
			['chart', '{"kind":"bar"}'],
		]);
	});
});

describe('token kinds when the record has no answer text (the tokens are the answer)', () => {
	it('the answer is the completion tokens alone, without function tokens or canvas markup', async () => {
		const lines = [
			{
				tag: 'onIntermediateStepUpdate',
				data: { stepId: 's1', stepLabel: 'search', arguments: '' },
			},
			{ tag: 'onNewToken', data: { token: '{"q":', updateType: 'function' } },
			{ tag: 'onNewToken', data: { token: '"bonsai"}', updateType: 'function' } },
			{ tag: 'onNewToken', data: { token: 'Bonsai <|dojo-', updateType: 'completion' } },
			{ tag: 'onNewToken', data: { token: 'canvas|>{"a":1}<|dojo-canvas|>care.' } },
			{ id: 'req_1', flow_id: 'flow_1', status: 'complete', response: {} },
		];
		botdojo.answer = (_, res) => {
			res.writeHead(200, { 'content-type': 'application/x-ndjson' });
			res.end(lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
		};
		const { items, chunks, error } = await runNode({
			node: { type: 'botDojoRunFlow', parameters: message('flow_1', 'Hi') },
			credentials: botdojo.credentials,
			streaming: true,
		});
		expect(error).toBeUndefined();
		expect(items[0].json).toMatchObject({ text: 'Bonsai care.', canvases: [{ a: 1 }] });
		expect(chatText(chunks)).toBe('Bonsai care.');
		expect(items[0].json.toolCalls).toEqual([
			expect.objectContaining({ name: 'search', argumentText: '{"q":"bonsai"}' }),
		]);
	});
});

describe('tool arguments and results only in canvas.canvasData', () => {
	it.each([true, false])(
		'streaming %s: the step is a tool call with its input and output',
		async (streaming) => {
			const { items } = await runFlow(env, {
				parameters: message('flow_sdk', 'weather', { options: { streaming } }),
			});
			const calls = items[0].json.toolCalls as Array<Record<string, unknown>>;
			expect(
				calls.map(({ name, input, output, status }) => ({ name, input, output, status })),
			).toEqual([
				{ name: 'search', input: { query: 'weather' }, output: { hits: 2 }, status: 'complete' },
				{ name: 'chart', input: { kind: 'bar' }, output: { drawn: true }, status: 'complete' },
			]);
		},
	);
});

describe("a step's canvas (FlowRequestStep.canvas)", () => {
	it.each([true, false])(
		'streaming %s: is output in canvases, once per step',
		async (streaming) => {
			const canvases = [
				{
					canvasId: expect.stringMatching(/^canvas_/),
					canvasType: 'mcp-app',
					canvasData: { arguments: { kind: 'bar' }, result: '{"drawn":true}' },
				},
			];
			const { items } = await runFlow(env, {
				parameters: message('flow_sdk', 'weather', { options: { streaming } }),
				typeVersion: 1.1,
			});
			expect(items[0].json.canvases).toEqual(canvases);
			const raw = await runFlow(env, {
				parameters: message('flow_sdk', 'weather', { simplify: false, options: { streaming } }),
				typeVersion: 1.1,
			});
			expect(raw.items[0].json.canvases).toEqual(canvases);
		},
	);
});

describe("a step's canvas streamed, the record without steps", () => {
	it('is output once, as its latest update, beside the canvases of the answer text', async () => {
		const canvas = (state: string) => ({
			canvasId: 'c1',
			canvasType: 'mcp-app',
			canvasData: { state },
		});
		const lines = [
			{ tag: 'onIntermediateStepUpdate', data: { stepId: 's1', stepLabel: 'chart', canvas: null } },
			{ tag: 'onIntermediateStepUpdate', data: { stepId: 's1', canvas: canvas('drawing') } },
			{
				tag: 'onIntermediateStepUpdate',
				data: { stepId: 's2', subSteps: [{ stepId: 's1', canvas: canvas('drawn') }] },
			},
			{ tag: 'onNewToken', data: { token: 'See <|dojo-canvas|>{"a":1}<|dojo-canvas|>.' } },
			{ id: 'req_1', flow_id: 'flow_1', status: 'complete', response: {} },
		];
		botdojo.answer = (_, res) => {
			res.writeHead(200, { 'content-type': 'application/x-ndjson' });
			res.end(lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
		};
		const { items, error } = await runNode({
			node: { type: 'botDojoRunFlow', typeVersion: 1.1, parameters: message('flow_1', 'Hi') },
			credentials: botdojo.credentials,
		});
		expect(error).toBeUndefined();
		expect(items[0].json).toMatchObject({ text: 'See .', canvases: [canvas('drawn'), { a: 1 }] });
	});
});

describe('a record that has not finished', () => {
	it.each([
		['pending', true],
		['running', false],
	])(
		'status %s (streaming %s) is an error naming the flow request, never an empty success',
		async (status, streaming) => {
			env.emu.defineFlow('flow_unfinished', {
				status: status as 'pending' | 'running',
				answer: () => '',
			});
			const { items, error } = await runFlow(env, {
				parameters: message('flow_unfinished', 'Hi', { options: { streaming } }),
			});
			const record = [...env.emu.records.values()][0];
			expect(items).toEqual([]);
			expect(error?.message).toBe(
				`The flow had not finished when BotDojo answered (status "${status}")`,
			);
			expect(error?.description).toContain(`flow request "${record.id}" still "${status}"`);
			expect(error?.description).toMatch(/rather than running the flow again/);
			expect(env.emu.requestsTo('run')).toHaveLength(1);

			const continuing = await runFlow(env, {
				parameters: message('flow_unfinished', 'Hi', { options: { streaming } }),
				continueOnFail: true,
			});
			expect(continuing.items[0].json.error).toMatch(/had not finished/);
		},
	);
});

describe('canvas markup', () => {
	const shown = 'Here is the chart:\n\nAnd the table:\n\nThat is all.';
	const canvases = [
		{ canvasType: 'dojo-canvas', canvasData: { kind: 'bar', values: [3, 5] } },
		{ canvasData: { rows: 2, note: 'a } in text' } },
	];
	const suggestedQuestions = ['Show the values as a table', 'What do the values mean?'];

	it('never reaches the chat raw, even split across tokens; only a possible tag start is held back', async () => {
		const { items, chunks } = await runFlow(env, {
			parameters: message('flow_canvas', 'chart'),
			streaming: true,
		});
		// The first token goes out at once, without the "<|dojo" that may open a tag.
		expect(chunks[1].chunk).toMatchObject({ type: 'item', content: 'Here is the chart:\n' });
		for (const { chunk } of chunks) expect(chunk.content ?? '').not.toMatch(/<\||\|>|canva|dojo/);
		expect(chatText(chunks)).toBe(shown);
		expect(items[0].json).toMatchObject({ text: shown, canvases, suggestedQuestions });
	});

	it('is taken out of the text of a run answered whole too; the raw record gets canvases', async () => {
		const { items } = await runFlow(env, {
			parameters: message('flow_canvas', 'chart', { options: { streaming: false } }),
			typeVersion: 1.1,
		});
		expect(items[0].json).toMatchObject({ text: shown, canvases, suggestedQuestions });
		const raw = await runFlow(env, {
			parameters: message('flow_canvas', 'chart', { simplify: false }),
			typeVersion: 1.1,
		});
		expect(raw.items[0].json.canvases).toEqual(canvases);
	});

	it('Keep Canvas Markup keeps the raw text, live and final', async () => {
		const { items, chunks } = await runFlow(env, {
			parameters: message('flow_canvas', 'chart', { options: { keepCanvasMarkup: true } }),
			streaming: true,
		});
		const record = [...env.emu.records.values()][0];
		const rawText = record.response.text_output as string;
		expect(rawText).toContain('<|dojo-canvas|>');
		expect(chatText(chunks)).toBe(rawText);
		expect(items[0].json).toMatchObject({ text: rawText, canvases, suggestedQuestions });
	});

	it('a run without canvases has neither field', async () => {
		const { items } = await runFlow(env, {
			parameters: message('flow_echo', 'a < b { "canvas": 1 }'),
			typeVersion: 1.1,
		});
		expect(items[0].json.text).toBe('Echo #1: a < b { "canvas": 1 }');
		expect(items[0].json).not.toHaveProperty('canvases');
		expect(items[0].json).not.toHaveProperty('suggestedQuestions');
	});
});

describe('Run Flow as an AI Agent tool', () => {
	const TOOL = 'botDojoRunFlowTool';
	nodeTypes.register(`${PACKAGE}.${TOOL}`, toolVariant('botDojoRunFlow'));

	/** The options n8n offers in Add Option for this node type. */
	function offeredOptions(type: INodeType): string[] {
		const node = { typeVersion: 1.1, parameters: {} } as unknown as INode;
		const options = type.description.properties.find((p) => p.name === 'options')
			?.options as INodeProperties[];
		return options
			.filter((option) => NodeHelpers.displayParameter({}, option, node, type.description))
			.map((option) => option.displayName);
	}

	it('offers no Streaming, Forward Tokens Live or Concurrency; the node keeps them', () => {
		const forTool = offeredOptions(nodeTypes.getByNameAndVersion(`${PACKAGE}.${TOOL}`));
		const forNode = offeredOptions(nodeTypes.getByNameAndVersion(`${PACKAGE}.botDojoRunFlow`));
		const toolCannotUse = ['Streaming', 'Forward Tokens Live', 'Concurrency'];
		for (const name of toolCannotUse) {
			expect(forNode).toContain(name);
			expect(forTool).not.toContain(name);
		}
		expect(forTool).toEqual(forNode.filter((name) => !toolCannotUse.includes(name)));
		expect(forTool).toContain('Keep Canvas Markup');
	});

	it('Selected Fields can give the agent the answer with its canvases and suggestedQuestions', async () => {
		const toolFields = ['text', 'canvases', 'suggestedQuestions'];
		const { items, error } = await runNode({
			node: {
				type: TOOL,
				typeVersion: 1.1,
				parameters: message('flow_canvas', 'chart', { toolOutput: 'selected', toolFields }),
			},
			credentials: env.credentials,
		});
		expect(error).toBeUndefined();
		expect(Object.keys(items[0].json).sort()).toEqual([...toolFields].sort());
		expect(items[0].json.text).toBe('Here is the chart:\n\nAnd the table:\n\nThat is all.');
	});
});
