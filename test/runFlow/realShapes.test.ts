/* eslint-disable @n8n/community-nodes/no-restricted-imports -- test code: runs in jest, never in n8n */
/**
 * BotDojo Run Flow against the shapes BotDojo's own chat SDK shows (botdojo-ai/botdojo-chat-sdk,
 * src/generated/sdk-types-snapshot.ts): tool steps `{ stepId, stepLabel, stepStatus, content,
 * arguments (JSON string), toolPhase, canvas, subIntermediateSteps }`, onFlowRequestStart/End,
 * onLog with timestamp, onNewToken updates with toolArguments or without a token, and the stream
 * types job/realtime. Served over real HTTP by a small BotDojo stand-in until the emulator
 * sends these shapes itself (helper "emu"); the run goes through n8n's engine.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { IDataObject, INodeParameters } from 'n8n-workflow';

import type { BotDojoCredentialData } from '../helpers/engine';
import { runNode } from '../helpers/engine';

const STEPS = [
	{
		stepId: 'step_1',
		stepLabel: 'Thinking',
		stepStatus: 'complete',
		content: 'I should look this up',
		startTime: '2026-01-01T00:00:00.000Z',
		subIntermediateSteps: [
			{
				stepId: 'step_2',
				stepLabel: 'search_docs',
				stepStatus: 'complete',
				content: '2 documents found',
				arguments: '{"query":"refund policy"}',
				toolPhase: 'complete',
				canvas: null,
				subIntermediateSteps: [],
			},
		],
	},
	{
		stepId: 'step_3',
		stepLabel: 'calculator',
		stepStatus: 'error',
		error: 'Division by zero',
		content: '',
		arguments: 'not json',
		toolPhase: 'error',
		canvas: null,
		subIntermediateSteps: [],
	},
];

const ANSWER = 'Refunds take 14 days.';

/** flow_notext: a final record without the answer, so the tokens must give it. */
function record(withText = true): IDataObject {
	if (!withText)
		return { ...record(), response: {}, aiMessage: { role: 'assistant', steps: STEPS } };
	return {
		id: 'fr_1',
		flow_id: 'flow_real',
		flow_session_id: 'fs_1',
		status: 'complete',
		stream: 'job',
		duration: 42,
		version: '1',
		response: { text_output: ANSWER },
		aiMessage: { role: 'assistant', content: ANSWER, steps: STEPS },
	};
}

function streamLines(withText: boolean): IDataObject[] {
	const start = { ...record(), status: 'running', response: {}, aiMessage: {} };
	return [
		{ tag: 'onFlowRequestStart', data: start },
		{
			tag: 'onLog',
			data: { message: 'started', level: 'info', timestamp: '2026-01-01T00:00:00Z' },
		},
		{ tag: 'onIntermediateStepUpdate', data: { ...STEPS[1], stepStatus: 'processing' } },
		// A tool's arguments streamed as token updates: not part of the answer.
		{ tag: 'onNewToken', data: { token: '{"expr', toolArguments: { expr: '1/0' } } },
		{ tag: 'onNewToken', data: { toolArguments: { expr: '1/0' } } },
		{ tag: 'onIntermediateStepUpdate', data: STEPS[1] },
		{ tag: 'onIntermediateStepUpdate', data: STEPS[0] },
		...['Refunds ', 'take ', '14 days.'].map((token) => ({ tag: 'onNewToken', data: { token } })),
		{ tag: 'onSomethingNew', data: { stream: 'realtime' } },
		{ tag: 'onFlowRequestEnd', data: record(withText) },
		record(withText),
	];
}

let server: Server;
let credentials: BotDojoCredentialData;

beforeAll(async () => {
	server = createServer((request, response) => {
		let body = '';
		request.on('data', (chunk: Buffer) => (body += chunk.toString()));
		request.on('end', () => {
			const options = (JSON.parse(body) as { options?: { stream?: string } }).options ?? {};
			const withText = !request.url?.includes('flow_notext');
			if (options.stream === 'http') {
				response.writeHead(200, { 'Content-Type': 'application/x-ndjson' });
				response.end(
					streamLines(withText)
						.map((line) => `${JSON.stringify(line)}\n`)
						.join(''),
				);
			} else {
				response.writeHead(200, { 'Content-Type': 'application/json' });
				response.end(JSON.stringify(record(withText)));
			}
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	credentials = {
		baseUrl: `http://127.0.0.1:${port}`,
		accountId: 'acc_1',
		projectId: 'proj_1',
		apiKey: 'test-key-real-shapes',
	};
});

afterAll(async () => await new Promise((resolve) => server.close(resolve)));

async function run(options: INodeParameters, simplify = true, flowId = 'flow_real') {
	const { items, error } = await runNode({
		node: {
			type: 'botDojoRunFlow',
			parameters: {
				flowId,
				inputMode: 'message',
				message: 'Refunds?',
				simplify,
				options,
			},
		},
		credentials: { main: credentials },
	});
	expect(error).toBeUndefined();
	return items[0].json;
}

const EXPECTED_TOOL_CALLS = [
	{
		name: 'search_docs',
		input: { query: 'refund policy' },
		output: '2 documents found',
		status: 'complete',
		stepId: 'step_2',
	},
	{
		name: 'calculator',
		input: 'not json',
		error: 'Division by zero',
		status: 'error',
		stepId: 'step_3',
	},
];

describe('BotDojo Run Flow: the shapes of the real service', () => {
	it.each([
		['streamed', { streaming: true }],
		['not streamed', { streaming: false }],
	])('%s: toolCalls name the tool, its parsed arguments, result and status', async (_, options) => {
		const json = await run(options);
		expect(json.toolCalls).toEqual(EXPECTED_TOOL_CALLS);
		expect(json.text).toBe(ANSWER);
		expect(json).toMatchObject({ status: 'complete', durationMs: 42, flowRequestId: 'fr_1' });
	});

	it('without text in the final record, the text is the answer tokens, not the tool-argument updates', async () => {
		const json = await run({}, true, 'flow_notext');
		expect(json.text).toBe(ANSWER);
		expect(json.toolCalls).toEqual(EXPECTED_TOOL_CALLS);
	});

	it('keeps unknown tags and onLog timestamps among the raw events', async () => {
		const json = await run({ includeEvents: true, includeLogs: true }, false);
		const tags = (json.events as Array<{ tag: string }>).map((event) => event.tag);
		expect(tags).toEqual(
			expect.arrayContaining(['onFlowRequestStart', 'onFlowRequestEnd', 'onSomethingNew']),
		);
		expect(json.logs).toEqual([
			{ message: 'started', level: 'info', timestamp: '2026-01-01T00:00:00Z' },
		]);
		expect(json.stream).toBe('job');
		expect(json.toolCalls).toEqual(EXPECTED_TOOL_CALLS);
	});
});
