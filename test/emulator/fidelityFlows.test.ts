/* eslint-disable @typescript-eslint/no-explicit-any -- test code: reads loosely typed JSON */
/**
 * The emulator's flows taken from public evidence about the real BotDojo (issue 13): real
 * tool-step shape, request events, tool argument tokens, slow and human-paced flows.
 */
import { tokensOf, useRawEmulator } from './http';

const env = useRawEmulator();
const { post, streamRun } = env;

const REAL_STEP_KEYS = [
	'stepId',
	'stepLabel',
	'stepStatus',
	'content',
	'arguments',
	'toolPhase',
	'canvas',
	'subIntermediateSteps',
];

/** A step without its generated id and time, to compare streamed and blocking runs. */
const stable = (step: any) => {
	const rest = { ...step };
	delete rest.stepId;
	delete rest.startTime;
	return rest;
};

describe('tool steps in the real shape (flow_tools_real)', () => {
	const expectedSteps = [
		{
			stepLabel: 'search',
			stepStatus: 'complete',
			content: '{"hits":2}',
			arguments: '{"query":"weather"}',
			toolPhase: 'complete',
			canvas: null,
			subIntermediateSteps: [],
		},
		{
			stepLabel: 'calculator',
			stepStatus: 'error',
			content: 'Division by zero',
			arguments: '{"expression":"1/0"}',
			toolPhase: 'error',
			canvas: null,
			subIntermediateSteps: [],
			error: 'Division by zero',
		},
	];

	it('a blocking run lists the calls in aiMessage.steps with JSON-string arguments', async () => {
		const r = await post('/flows/flow_tools_real/run', { body: { text_input: 'weather' } });
		expect(r.status).toBe(200);
		const steps = r.json.aiMessage.steps;
		for (const step of steps) {
			for (const key of REAL_STEP_KEYS) expect(step).toHaveProperty(key);
			expect(step).not.toHaveProperty('toolName');
		}
		expect(steps.map(stable)).toEqual(expectedSteps);
		expect(JSON.parse(steps[0].arguments)).toEqual({ query: 'weather' });
		expect(r.json.response.text_output).toContain('found 2 hits');
	});

	it('a streamed run sends the same steps, phase by phase, and tool events naming the tool', async () => {
		const lines = (await streamRun('flow_tools_real', { text_input: 'weather' })).lines();
		const final = lines[lines.length - 1];
		expect(final.aiMessage.steps.map(stable)).toEqual(expectedSteps);

		const updates = lines.filter((l) => l.tag === 'onIntermediateStepUpdate').map((l) => l.data);
		const search = updates.filter((u) => u.stepId === final.aiMessage.steps[0].stepId);
		expect(search.map((u) => [u.toolPhase, u.stepStatus])).toEqual([
			['streaming_args', 'processing'],
			['executing', 'processing'],
			['complete', 'complete'],
		]);
		expect(search[1].arguments).toBe('{"query":"weather"}');

		const tools = lines.filter((l) => /^onTool/.test(l.tag));
		expect(tools.map((l) => [l.tag, l.data.toolName])).toEqual([
			['onToolStart', 'search'],
			['onToolEnd', 'search'],
			['onToolStart', 'calculator'],
			['onToolError', 'calculator'],
		]);
		expect(tools[0].data.stepId).toBe(final.aiMessage.steps[0].stepId);
	});

	it('sends onFlowRequestStart and onFlowRequestEnd with the record, and onLog with a timestamp', async () => {
		const lines = (await streamRun('flow_tools_real', { text_input: 'x' })).lines();
		const final = lines[lines.length - 1];
		expect(lines[0].tag).toBe('onFlowRequestStart');
		expect(lines[0].data).toMatchObject({ id: final.id, status: 'running', response: {} });
		const end = lines[lines.length - 2];
		expect(end.tag).toBe('onFlowRequestEnd');
		expect(end.data).toEqual(final);
		const log = lines.find((l) => l.tag === 'onLog').data;
		expect(log).toMatchObject({ level: 'info', message: expect.any(String) });
		expect(new Date(log.timestamp).toISOString()).toBe(log.timestamp);
	});

	it('accepts the request events in stream_events', async () => {
		const lines = (
			await streamRun('flow_tools_real', {}, { stream_events: ['onFlowRequestEnd'] })
		).lines();
		expect(lines.map((l) => l.tag)).toEqual(['onFlowRequestEnd', undefined]);
	});

	it('defineFlow with shape real gives any flow the real shape; legacy flows keep theirs', async () => {
		env.emu.defineFlow('flow_lookup', {
			shape: 'real',
			tools: [{ toolName: 'lookup', input: { id: 7 }, output: 'seven' }],
			answer: () => 'done',
		});
		const r = await post('/flows/flow_lookup/run', { body: {} });
		expect(r.json.aiMessage.steps.map(stable)).toEqual([
			expect.objectContaining({ stepLabel: 'lookup', content: 'seven', arguments: '{"id":7}' }),
		]);
		const legacy = await post('/flows/flow_tools/run', { body: {} });
		expect(legacy.json.aiMessage.steps[0]).toMatchObject({
			toolName: 'search',
			status: 'complete',
		});
	});
});

describe('tool-argument tokens (flow_agent)', () => {
	it('streams toolArguments without token, and the record holds the true answer', async () => {
		const lines = (await streamRun('flow_agent', { text_input: 'bonsai' })).lines();
		const tokenEvents = lines.filter((l) => l.tag === 'onNewToken').map((l) => l.data);
		const argumentUpdates = tokenEvents.filter((d) => !('token' in d));
		expect(argumentUpdates.length).toBeGreaterThan(1);
		expect(JSON.parse(argumentUpdates[argumentUpdates.length - 1].toolArguments)).toEqual({
			query: 'bonsai',
		});
		const final = lines[lines.length - 1];
		expect(final.response.text_output).toBe('Found 2 hits for "bonsai".');
		expect(final.aiMessage.content).toBe('Found 2 hits for "bonsai".');
		// joining the tokens gives more than the answer: the preamble before the tool call
		expect(tokensOf(lines)).toBe('Let me look that up. Found 2 hits for "bonsai".');
	});
});

describe("the SDK's names and token kinds (flow_sdk)", () => {
	it('sends onFlowRequestStart/End but not onFlowStart/End, and every token with its updateType', async () => {
		const lines = (await streamRun('flow_sdk', { text_input: 'bonsai' })).lines();
		const tags = lines.map((l) => l.tag);
		expect(tags[0]).toBe('onFlowRequestStart');
		expect(tags[tags.length - 2]).toBe('onFlowRequestEnd');
		expect(tags).not.toContain('onFlowStart');
		expect(tags).not.toContain('onFlowEnd');
		const tokens = lines.filter((l) => l.tag === 'onNewToken').map((l) => l.data);
		const of = (kind: string) =>
			tokens
				.filter((t) => t.updateType === kind)
				.map((t) => t.token)
				.join('');
		expect(tokens.every((t) => ['completion', 'function'].includes(t.updateType))).toBe(true);
		expect(of('completion')).toBe(lines[lines.length - 1].response.text_output);
		expect(of('function')).toBe('{"query":"bonsai"}{"kind":"bar"}');
	});

	it("puts the chart call's arguments and result only in canvas.canvasData, streamed and not", async () => {
		const streamed = (await streamRun('flow_sdk', { text_input: 'x' })).lines();
		const blocking = await post('/flows/flow_sdk/run', { body: { text_input: 'x' } });
		for (const steps of [
			streamed[streamed.length - 1].aiMessage.steps,
			blocking.json.aiMessage.steps,
		]) {
			const chart = steps[1];
			expect(stable(chart)).toEqual({
				stepLabel: 'chart',
				stepStatus: 'complete',
				content: '',
				canvas: {
					canvasId: expect.stringMatching(/^canvas_step_/),
					canvasType: 'mcp-app',
					canvasData: { arguments: { kind: 'bar' }, result: '{"drawn":true}' },
				},
			});
		}
	});
});

describe('canvas markup and suggested questions (flow_canvas)', () => {
	it('splits both canvas tags and the canvasData object across tokens; the record suggests questions', async () => {
		const lines = (await streamRun('flow_canvas', { text_input: 'x' })).lines();
		const tokens = lines.filter((l) => l.tag === 'onNewToken').map((l) => l.data.token as string);
		const final = lines[lines.length - 1];
		expect(tokens.join('')).toBe(final.response.text_output);
		expect(final.response.text_output.split('<|dojo-canvas|>')).toHaveLength(3);
		expect(final.response.text_output).toContain('{"canvasData": {"rows": 2');
		for (const token of tokens) expect(token).not.toContain('<|dojo-canvas|>');
		expect(tokens.some((token) => token.endsWith('{"canva'))).toBe(true);
		expect(final.response.suggestedQuestions).toEqual([
			'Show the values as a table',
			'What do the values mean?',
		]);
	});
});

describe('a flow that has not finished (defineFlow status pending or running)', () => {
	it.each(['pending', 'running'] as const)(
		'answers a %s record, streamed and not',
		async (status) => {
			env.emu.defineFlow('flow_later', { status, answer: () => '' });
			const blocking = await post('/flows/flow_later/run', { body: {} });
			const lines = (await streamRun('flow_later', {})).lines();
			for (const record of [blocking.json, lines[lines.length - 1]]) {
				expect(record).toMatchObject({ status, response: {}, endTime: null, duration: null });
			}
		},
	);
});

describe('slow and human-paced flows', () => {
	it('flow_wait blocks for body.waitMs before answering (non-streamed)', async () => {
		const r = await post('/flows/flow_wait/run', { body: { waitMs: 300 } });
		expect(r.json.response.text_output).toBe('Waited 300 ms');
		expect(r.json.duration).toBeGreaterThanOrEqual(299);
		const [entry] = env.emu.requestsTo('run');
		expect((entry.respondedAt as number) - entry.receivedAt).toBeGreaterThanOrEqual(299);
		const fromText = await post('/flows/flow_wait/run', { body: { text_input: '20' } });
		expect(fromText.json.response.text_output).toBe('Waited 20 ms');
	});

	it('flow_typing streams a few seconds of tokens at 20 to 40 tokens a second', async () => {
		const flow = env.emu.flows.get('flow_typing')!;
		const rate = 1000 / (flow.tokenDelayMs as number);
		expect(rate).toBeGreaterThanOrEqual(20);
		expect(rate).toBeLessThanOrEqual(40);
		const lines = (await streamRun('flow_typing', { text_input: 'hi' })).lines();
		const tokens = lines.filter((l) => l.tag === 'onNewToken');
		const seconds = tokens.length / rate;
		expect(seconds).toBeGreaterThanOrEqual(2);
		expect(seconds).toBeLessThanOrEqual(6);
		expect(tokensOf(lines)).toBe(lines[lines.length - 1].response.text_output);
	});
});

describe('flow_memory: an answer that shows what the session remembers', () => {
	const say = async (text: string, sessionId?: string) => {
		const options = sessionId ? { flow_session_id: sessionId } : {};
		const lines = (await streamRun('flow_memory', { text_input: text }, options)).lines();
		const record = lines[lines.length - 1];
		expect(tokensOf(lines)).toBe(record.response.text_output);
		return { answer: record.response.text_output as string, sessionId: record.flow_session_id };
	};

	it('recalls the name given earlier in the same session, and only there', async () => {
		const first = await say('Hello, my name is Ana');
		expect(first.answer).toMatch(/^Nice to meet you, Ana!/);
		const second = await say('What is my name?', first.sessionId);
		expect(second.answer).toMatch(/^Your name is Ana\./);
		const other = await say('What is my name?');
		expect(other.answer).toMatch(/^I do not know your name yet/);
		expect((await say('Hi')).answer).toMatch(/^You said: Hi\. This is message 1 of this chat/);
	});
});
