/* eslint-disable @typescript-eslint/no-explicit-any -- test code: reads loosely typed JSON */
/**
 * The emulator's switches that reliability tests need (issues 9 and 13): session refusal, export
 * of an unknown flow, the `success` wrapper, records modified after the fact, Retry-After on every
 * endpoint.
 */
import { startEmulator } from '../../emulator';
import { params, useRawEmulator } from './http';

const env = useRawEmulator();
const { post, project } = env;

describe('session refused with a 5xx (fault session-error)', () => {
	it('answers the status with "Error loading session <id>" and runs nothing', async () => {
		const first = await post('/flows/flow_echo/run', { body: { text_input: 'a' } });
		const sid = first.json.flow_session_id;
		env.emu.injectFault('session-error', { status: 503 });
		// a run without a session id does not consume it
		expect((await post('/flows/flow_echo/run', { body: {} })).status).toBe(200);
		const records = env.emu.records.size;
		const refused = await post('/flows/flow_echo/run', {
			body: { text_input: 'b' },
			options: { flow_session_id: sid },
		});
		expect([refused.status, refused.json.error.message]).toEqual([
			503,
			`Error loading session ${sid}`,
		]);
		expect(env.emu.records.size).toBe(records);
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
		expect(env.emu.behavior.unknownFlowExport).toBe('empty');
		env.emu.setBehavior({ unknownFlowExport: 'notFound' });
		const nf = await post('/flow_requests/export', params('flow_nope', null, 10));
		expect([nf.status, nf.json.error.message]).toEqual([
			404,
			"Flow 'flow_nope' not found in project 'proj_demo'",
		]);
		const known = await post('/flow_requests/export', params('flow_echo', null, 10));
		expect([known.status, known.json.results]).toEqual([200, []]);
		env.emu.reset();
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
		env.emu.setBehavior({ answerWrapper: 'success' });
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
			headers: { Authorization: env.emu.keys.project },
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
		expect(() => env.emu.setBehavior({ answerWrapper: 'data' as any })).toThrow(/answerWrapper/);
	});
});

describe('records modified after the fact', () => {
	it('touchRequest changes a finished record and moves modified forward, so export sees it again', async () => {
		const [rec] = env.emu.seedFlowRequests('flow_echo', 1, {
			start: Date.parse('2026-01-01T00:00:00Z'),
		});
		const before = rec.modified;
		const touched = env.emu.touchRequest(rec.id, { tags: ['reviewed'] });
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
		const pinned = env.emu.touchRequest(rec.id, { modified: '2026-02-01T00:00:00.000Z' });
		expect(pinned.modified).toBe('2026-02-01T00:00:00.000Z');
		expect(() => env.emu.touchRequest('req_nope')).toThrow(/req_nope/);
	});

	it('many records sharing one modified millisecond page out each exactly once', async () => {
		const seeded = env.emu.seedFlowRequests('flow_echo', 50, { start: Date.now(), stepMs: 0 });
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
			headers: { Authorization: env.emu.keys.project, ...headers },
			body: JSON.stringify(body),
		});
	}

	it.each(endpoints)('%s: seconds (armed) and HTTP date (header)', async (name, call) => {
		env.emu.injectFault('429', { endpoint: name as any, retryAfter: 2 });
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
		env.emu.injectFault('429', { endpoint: 'download', retryAfterDate: 10 });
		const res = await fetch(`${env.emu.origin}/signed/doc_x?v=v1&expires=1&sig=x`);
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
