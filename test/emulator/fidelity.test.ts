/* eslint-disable @typescript-eslint/no-explicit-any -- test code: reads loosely typed JSON */
/**
 * The emulator's behaviours taken from public evidence about the real BotDojo (issue 13) and the
 * switches that reliability tests need (issue 9): real tool-step shape, request events, tool
 * argument tokens, session refusal, export of an unknown flow, the `success` wrapper, records
 * modified after the fact, slow and human-paced flows, Retry-After on every endpoint.
 */
import { startEmulator, type Emulator } from '../../emulator';
import { emulatorClient, params, tokensOf } from './http';

let emu: Emulator;
beforeAll(async () => {
	emu = await startEmulator({ port: 0 });
});
beforeEach(() => emu.reset());
afterAll(async () => await emu.close());

const { post, streamRun, project } = emulatorClient(() => emu);

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
		emu.defineFlow('flow_lookup', {
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

describe('session refused with a 5xx (fault session-error)', () => {
	it('answers the status with "Error loading session <id>" and runs nothing', async () => {
		const first = await post('/flows/flow_echo/run', { body: { text_input: 'a' } });
		const sid = first.json.flow_session_id;
		emu.injectFault('session-error', { status: 503 });
		// a run without a session id does not consume it
		expect((await post('/flows/flow_echo/run', { body: {} })).status).toBe(200);
		const records = emu.records.size;
		const refused = await post('/flows/flow_echo/run', {
			body: { text_input: 'b' },
			options: { flow_session_id: sid },
		});
		expect([refused.status, refused.json.error.message]).toEqual([
			503,
			`Error loading session ${sid}`,
		]);
		expect(emu.records.size).toBe(records);
		const header = await post(
			'/flows/flow_echo/run',
			{ body: {}, options: { flow_session_id: sid, stream: 'http' } },
			{ headers: { 'X-Emulator-Fault': 'session-error' } },
		);
		expect([header.status, header.json.error.message]).toEqual([
			500,
			`Error loading session ${sid}`,
		]);
		const again = await post('/flows/flow_echo/run', {
			body: { text_input: 'c' },
			options: { flow_session_id: sid },
		});
		expect(again.json.response.text_output).toBe('Echo #2: c');
	});
});

describe("the stream types of BotDojo's SDK (job, realtime)", () => {
	it.each(['job', 'realtime'])(
		'a run asking for stream %s is accepted, answered with the record, and exported as such',
		async (stream) => {
			const run = await post('/flows/flow_echo/run', {
				body: { text_input: 'Hi' },
				options: { stream },
			});
			expect([run.status, run.json.status, run.json.requestParams]).toEqual([
				200,
				'complete',
				{ stream },
			]);
			const page = await post('/flow_requests/export', params('flow_echo', null, 10));
			expect(page.json.results.map((record: any) => record.requestParams.stream)).toEqual([stream]);
		},
	);

	it('other stream values are still refused', async () => {
		const run = await post('/flows/flow_echo/run', { body: {}, options: { stream: 'sse' } });
		expect([run.status, run.json.error.message]).toEqual([
			400,
			'"options.stream" must be one of none, http, job, realtime',
		]);
	});
});

describe('behaviours', () => {
	it('unknownFlowExport notFound: 404 naming the flow; reset() restores 200 with no results', async () => {
		expect(emu.behavior.unknownFlowExport).toBe('empty');
		emu.setBehavior({ unknownFlowExport: 'notFound' });
		const nf = await post('/flow_requests/export', params('flow_nope', null, 10));
		expect([nf.status, nf.json.error.message]).toEqual([
			404,
			"Flow 'flow_nope' not found in project 'proj_demo'",
		]);
		const known = await post('/flow_requests/export', params('flow_echo', null, 10));
		expect([known.status, known.json.results]).toEqual([200, []]);
		emu.reset();
		const empty = await post('/flow_requests/export', params('flow_nope', null, 10));
		expect([empty.status, empty.json]).toEqual([
			200,
			{ results: [], nextCursor: null, hasMore: false },
		]);
	});

	it('unknownFlowExport can be chosen at start', async () => {
		const other = await startEmulator({ unknownFlowExport: 'notFound' });
		try {
			const res = await fetch(
				`${other.baseUrl}/accounts/acc_demo/projects/proj_demo/flow_requests/export`,
				{
					method: 'POST',
					headers: { Authorization: other.keys.project },
					body: JSON.stringify(params('flow_nope', null, 10)),
				},
			);
			expect(res.status).toBe(404);
			other.reset();
			expect(other.behavior.unknownFlowExport).toBe('notFound');
		} finally {
			await other.close();
		}
	});

	it('answerWrapper success: every positional endpoint answers { success: true, results }', async () => {
		emu.setBehavior({ answerWrapper: 'success' });
		const session = await post('/flow_sessions/createSession', params('flow_echo', {}));
		expect(session.json).toEqual({
			success: true,
			results: expect.objectContaining({ id: expect.stringMatching(/^ses_/) }),
		});
		await post('/flows/flow_echo/run', {
			body: { text_input: 'hi' },
			options: { flow_session_id: session.json.results.id },
		});
		const exported = await post('/flow_requests/export', params('flow_echo', null, 10));
		expect(exported.json).toEqual({
			success: true,
			results: [expect.objectContaining({ flow_id: 'flow_echo' })],
			nextCursor: null,
			hasMore: false,
		});
		const bySession = await post(
			'/flow_requests/loadByFlowSession',
			params('flow_echo', session.json.results.id),
		);
		expect(bySession.json).toEqual({ success: true, results: [expect.any(Object)] });
		const form = new FormData();
		form.append('document', new Blob(['hello']), 'a.txt');
		form.append('fileName', 'a.txt');
		form.append('logicalPath', 'docs/a.txt');
		const upload = await fetch(`${project()}/documents/upload-file`, {
			method: 'POST',
			headers: { Authorization: emu.keys.project },
			body: form,
		});
		const doc = await upload.json();
		expect(doc).toMatchObject({ logicalPath: 'docs/a.txt' });
		const byPath = await post('/documents/loadByLogicalPath', params('docs/a.txt'));
		expect(byPath.json).toEqual({ success: true, results: doc });
		const link = await post(
			'/documents/getTemporarySignedUrl',
			params(doc, new Date(Date.now() + 60000).toISOString()),
		);
		expect(link.json).toEqual({ success: true, results: expect.stringContaining('/signed/') });
		const status = await post('/indexes/getStatus', params('idx_docs'));
		expect(status.json).toEqual({
			success: true,
			results: expect.objectContaining({ id: 'idx_docs' }),
		});
		const chunks = await post('/indexes/queryMetadata', params('idx_docs', { lang: 'de' }));
		expect(chunks.json).toEqual({
			success: true,
			results: [expect.objectContaining({ id: 'chk_004' })],
		});
		expect(() => emu.setBehavior({ answerWrapper: 'data' as any })).toThrow(/answerWrapper/);
	});
});

describe('records modified after the fact', () => {
	it('touchRequest changes a finished record and moves modified forward, so export sees it again', async () => {
		const [rec] = emu.seedFlowRequests('flow_echo', 1, {
			start: Date.parse('2026-01-01T00:00:00Z'),
		});
		const before = rec.modified;
		const touched = emu.touchRequest(rec.id, { tags: ['reviewed'] });
		expect(Date.parse(touched.modified)).toBeGreaterThan(Date.parse(before));
		const since = await post(
			'/flow_requests/export',
			params('flow_echo', null, 10, new Date(Date.parse(before) + 1).toISOString()),
		);
		expect(since.json.results.map((r: any) => [r.id, r.tags, r.modified])).toEqual([
			[rec.id, ['reviewed'], touched.modified],
		]);
		const all = await post('/flow_requests/export', params('flow_echo', null, 10));
		expect(all.json.results).toHaveLength(1);
		const pinned = emu.touchRequest(rec.id, { modified: '2026-02-01T00:00:00.000Z' });
		expect(pinned.modified).toBe('2026-02-01T00:00:00.000Z');
		expect(() => emu.touchRequest('req_nope')).toThrow(/req_nope/);
	});

	it('many records sharing one modified millisecond page out each exactly once', async () => {
		const seeded = emu.seedFlowRequests('flow_echo', 50, { start: Date.now(), stepMs: 0 });
		expect(new Set(seeded.map((r) => r.modified)).size).toBe(1);
		const seen: string[] = [];
		let cursor: string | null = null;
		do {
			const page: any = await post('/flow_requests/export', params('flow_echo', cursor, 7));
			seen.push(...page.json.results.map((r: any) => r.id));
			cursor = page.json.nextCursor;
		} while (cursor);
		expect(seen).toHaveLength(50);
		expect(new Set(seen)).toEqual(new Set(seeded.map((r) => r.id)));
	});
});

describe('slow and human-paced flows', () => {
	it('flow_wait blocks for body.waitMs before answering (non-streamed)', async () => {
		const r = await post('/flows/flow_wait/run', { body: { waitMs: 300 } });
		expect(r.json.response.text_output).toBe('Waited 300 ms');
		expect(r.json.duration).toBeGreaterThanOrEqual(299);
		const [entry] = emu.requestsTo('run');
		expect((entry.respondedAt as number) - entry.receivedAt).toBeGreaterThanOrEqual(299);
		const fromText = await post('/flows/flow_wait/run', { body: { text_input: '20' } });
		expect(fromText.json.response.text_output).toBe('Waited 20 ms');
	});

	it('flow_typing streams a few seconds of tokens at 20 to 40 tokens a second', async () => {
		const flow = emu.flows.get('flow_typing')!;
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

describe('429 with Retry-After on every endpoint', () => {
	/** One request per endpoint; the fault is answered before auth and validation. */
	const endpoints: Array<[string, (headers: Record<string, string>) => Promise<Response>]> = [
		['run', (h) => send('/flows/flow_echo/run', { body: {} }, h)],
		['createSession', (h) => send('/flow_sessions/createSession', params('flow_echo', {}), h)],
		['export', (h) => send('/flow_requests/export', params('flow_echo', null, 10), h)],
		['loadByFlowSession', (h) => send('/flow_requests/loadByFlowSession', params('f', 's'), h)],
		['getTemporarySignedUrl', (h) => send('/documents/getTemporarySignedUrl', params({}, ''), h)],
		['loadByLogicalPath', (h) => send('/documents/loadByLogicalPath', params('docs/x'), h)],
		['uploadFile', (h) => send('/documents/upload-file', {}, h)],
		['getStatus', (h) => send('/indexes/getStatus', params('idx_docs'), h)],
		['queryMetadata', (h) => send('/indexes/queryMetadata', params('idx_docs', {}), h)],
	];
	function send(path: string, body: unknown, headers: Record<string, string>) {
		return fetch(project() + path, {
			method: 'POST',
			headers: { Authorization: emu.keys.project, ...headers },
			body: JSON.stringify(body),
		});
	}

	it.each(endpoints)('%s: seconds (armed) and HTTP date (header)', async (name, call) => {
		emu.injectFault('429', { endpoint: name as any, retryAfter: 2 });
		const seconds = await call({});
		expect([seconds.status, seconds.headers.get('retry-after')]).toEqual([429, '2']);
		expect((await seconds.json()).error.code).toBe('RATE_LIMITED');

		const dated = await call({ 'X-Emulator-Fault': '429;retryAfterDate=30' });
		expect(dated.status).toBe(429);
		const header = dated.headers.get('retry-after') as string;
		expect(header).toMatch(/^\w{3}, \d{2} \w{3} \d{4} \d{2}:\d{2}:\d{2} GMT$/);
		const ahead = Date.parse(header) - Date.now();
		expect(ahead).toBeGreaterThan(25000);
		expect(ahead).toBeLessThanOrEqual(30000);

		expect((await call({})).status).not.toBe(429);
	});

	it('the signed-link download too', async () => {
		emu.injectFault('429', { endpoint: 'download', retryAfterDate: 10 });
		const res = await fetch(`${emu.origin}/signed/doc_x?v=v1&expires=1&sig=x`);
		expect(res.status).toBe(429);
		expect(Date.parse(res.headers.get('retry-after') as string)).toBeGreaterThan(Date.now());
		await res.text();
	});

	it('503 takes the same forms', async () => {
		const res = await send('/indexes/getStatus', params('idx_docs'), {
			'X-Emulator-Fault': '503;retryAfterDate=5',
		});
		expect(res.status).toBe(503);
		expect(Date.parse(res.headers.get('retry-after') as string)).toBeGreaterThan(Date.now());
	});
});
