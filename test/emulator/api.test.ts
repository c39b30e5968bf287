/* eslint-disable @n8n/community-nodes/no-restricted-globals, @typescript-eslint/no-explicit-any -- test code: runs in jest, never in n8n; reads loosely typed JSON */
/** The BotDojo emulator itself: its 9 endpoints, auth, streaming and every fault. */
import { createHash, randomBytes } from 'node:crypto';
import { startEmulator, type Emulator } from '../../emulator';
import { emulatorClient, params, tokensOf } from './http';

let emu: Emulator;

beforeAll(async () => {
	emu = await startEmulator({ port: 0 });
});
beforeEach(() => emu.reset());
afterAll(async () => await emu.close());

const { post, streamRun, project } = emulatorClient(() => emu);

describe('auth', () => {
	const run = (key: string | null, flow = 'flow_echo') =>
		post(`/flows/${flow}/run`, { body: { text_input: 'x' } }, { key });

	it('refuses missing, Bearer-prefixed and unknown keys with 401', async () => {
		expect((await run(null)).status).toBe(401);
		const bearer = await run(`Bearer ${emu.keys.project}`);
		expect(bearer.status).toBe(401);
		expect(bearer.json.error).toEqual({
			code: 'UNAUTHORIZED',
			message: expect.stringContaining('Bearer'),
		});
		expect((await run('bdk_nope')).status).toBe(401);
	});

	it('limits the flow key to running flow_echo', async () => {
		expect((await run(emu.keys.flow)).status).toBe(200);
		const other = await run(emu.keys.flow, 'flow_tools');
		expect(other.status).toBe(403);
		expect(other.json.error.message).toMatch(/flow key limited to flow 'flow_echo'/);
		expect(
			(await post('/indexes/getStatus', params('idx_docs'), { key: emu.keys.flow })).status,
		).toBe(403);
	});

	it('checks account and project ids after auth, naming them', async () => {
		const acc = await post('', params('idx_docs'), {
			url: `${emu.baseUrl}/accounts/acc_x/projects/proj_demo/indexes/getStatus`,
		});
		expect(acc.status).toBe(404);
		expect(acc.json.error.message).toContain('acc_x');
		const proj = await post('', params('idx_docs'), {
			url: `${emu.baseUrl}/accounts/acc_demo/projects/proj_x/indexes/getStatus`,
		});
		expect(proj.json.error.message).toContain('proj_x');
		const unauth = await post('', params('idx_docs'), {
			key: 'bad',
			url: `${emu.baseUrl}/accounts/acc_x/projects/proj_x/indexes/getStatus`,
		});
		expect(unauth.status).toBe(401);
	});
});

describe('run', () => {
	it('returns the full record and keeps session memory', async () => {
		const first = await post('/flows/flow_echo/run', { body: { text_input: 'hello' } });
		expect(first.status).toBe(200);
		const r = first.json;
		for (const k of [
			'tags',
			'id',
			'flow_id',
			'flow_session_id',
			'body',
			'requestParams',
			'runOptions',
			'override',
			'status',
			'top_request_id',
			'userMessage',
			'flow_history_id',
			'version',
			'response',
			'aiMessage',
			'eval_job_id',
			'startTime',
			'endTime',
			'duration',
			'created',
			'modified',
			'owner_uid',
			'modified_uid',
			'account_id',
			'project_id',
		]) {
			expect(r).toHaveProperty(k);
		}
		expect(r).toMatchObject({
			status: 'complete',
			version: '3',
			requestParams: { stream: 'none' },
			response: { text_output: 'Echo #1: hello' },
		});
		expect(r.userMessage).toMatchObject({ role: 'user', content: 'hello' });
		const second = await post('/flows/flow_echo/run', {
			body: { text_input: 'again' },
			options: {
				flow_session_id: r.flow_session_id,
				version: '1',
				override: { 'llm.temperature': 0 },
				evalOptions: { runMode: 'block' },
			},
		});
		expect(second.json).toMatchObject({
			version: '1',
			response: { text_output: 'Echo #2: again' },
			override: { 'llm.temperature': 0 },
		});
		expect(second.json.eval_job_id).toEqual(expect.any(String));
	});

	it('answers 400/404 for bad input', async () => {
		const bad = async (payload: unknown, status: number, msg: RegExp) => {
			const r = await post('/flows/flow_echo/run', payload);
			expect(r.status).toBe(status);
			expect(r.json.error.message).toMatch(msg);
		};
		await bad({ body: 'x' }, 400, /body/);
		await bad({ body: {}, options: { stream: 'sse' } }, 400, /stream/);
		await bad({ body: {}, options: { stream: 'http', stream_events: ['onNope'] } }, 400, /onNope/);
		await bad({ body: {}, options: { evalOptions: { runMode: 'later' } } }, 400, /runMode/);
		await bad(
			{ body: {}, options: { flow_session_id: 'ses_x' } },
			400,
			/^Error loading session ses_x: session not found$/,
		);
		await bad({ body: {}, options: { version: '9' } }, 404, /'9'/);
		const nf = await post('/flows/flow_nope/run', { body: {} });
		expect([nf.status, nf.json.error.code]).toEqual([404, 'NOT_FOUND']);
	});
});

describe('streaming', () => {
	it('sends NDJSON with the exact headers, tokens that rebuild the answer, final line last', async () => {
		const s = await streamRun('flow_echo', { text_input: 'héllo wörld 🎉' });
		expect(s.res.headers.get('content-type')).toBe('application/x-ndjson');
		expect(s.res.headers.get('transfer-encoding')).toBe('chunked');
		expect(s.res.headers.get('cache-control')).toBe('no-cache');
		expect(s.res.headers.get('connection')).toBe('keep-alive');
		const lines = s.lines();
		expect(lines[0].tag).toBe('onFlowStart');
		const final = lines[lines.length - 1];
		expect(final.tag).toBeUndefined();
		expect(tokensOf(lines)).toBe('Echo #1: héllo wörld 🎉');
		expect(final).toMatchObject({ status: 'complete', requestParams: { stream: 'http' } });
	});

	it('filters tags with stream_events and reports tools and errors', async () => {
		const only = (
			await streamRun(
				'flow_tools',
				{ text_input: 'q' },
				{ stream_events: ['onToolStart', 'onToolEnd', 'onToolError'] },
			)
		).lines();
		expect(only.slice(0, -1).map((l) => l.tag)).toEqual([
			'onToolStart',
			'onToolEnd',
			'onToolStart',
			'onToolError',
		]);
		expect(only[0].data.runId).toBe(only[1].data.runId);
		expect(only[3].data).toMatchObject({ toolName: 'calculator', error: 'Division by zero' });
		expect(only[4].aiMessage.steps).toHaveLength(2);
		const err = (await streamRun('flow_error', {})).lines();
		expect(err.some((l) => l.tag === 'onLog' && l.data.level === 'error')).toBe(true);
		expect(err[err.length - 1]).toMatchObject({
			status: 'error',
			response: { error: 'The model provider returned an error' },
		});
	});

	it('delivers flow_slow tokens over time and flow_big in full', async () => {
		const t0 = Date.now();
		const slow = await streamRun('flow_slow', {});
		expect(Date.now() - t0).toBeGreaterThanOrEqual(800);
		expect(tokensOf(slow.lines())).toBe('one two three four five six seven eight nine ten');
		const big = await streamRun('flow_big', { tokens: 20000 });
		expect(big.rawLines).toHaveLength(20000 + 4);
	});
});

describe('sessions, export, loadByFlowSession', () => {
	it('creates a session that a run continues', async () => {
		const state = { crm: { variables: { contact: { name: 'Ada' } } } };
		const s = await post('/flow_sessions/createSession', params('flow_state', state));
		expect(s.json).toMatchObject({
			flow_id: 'flow_state',
			sessionState: state,
			tags: [],
			account_id: 'acc_demo',
		});
		const r = await post('/flows/flow_state/run', {
			body: {},
			options: { flow_session_id: s.json.id },
		});
		expect(r.json.response.text_output).toContain('Ada');
		expect((await post('/flow_sessions/createSession', params('flow_nope', {}))).status).toBe(404);
		const bad = await post(
			'/flow_sessions/createSession',
			params('flow_echo', { crm: { vars: {} } }),
		);
		expect([bad.status, bad.json.error.message]).toEqual([
			400,
			expect.stringContaining('params[1] (session_data)'),
		]);
		const l = await post('/flow_requests/loadByFlowSession', params('flow_state', s.json.id));
		expect(l.json.results.map((x: any) => x.id)).toEqual([r.json.id]);
		expect(
			(await post('/flow_requests/loadByFlowSession', params('flow_state', 'ses_none'))).json,
		).toEqual({ results: [] });
	});

	it('pages with cursors over complete/error records sorted by modified, with date filters', async () => {
		const start = Date.parse('2024-01-01T00:00:00.000Z');
		emu.seedFlowRequests('flow_echo', 25, { start, errorEvery: 5, runningEvery: 7 });
		const seen: any[] = [];
		let cursor: string | null = null;
		for (let page = 0; page < 20; page++) {
			const r: any = await post('/flow_requests/export', params('flow_echo', cursor, 4));
			seen.push(...r.json.results);
			if (!r.json.hasMore) {
				expect(r.json.nextCursor).toBeNull();
				break;
			}
			cursor = r.json.nextCursor;
		}
		expect(seen).toHaveLength(22);
		expect(seen.every((x) => x.status === 'complete' || x.status === 'error')).toBe(true);
		expect(seen.map((x) => x.modified)).toEqual([...seen.map((x) => x.modified)].sort());
		const ranged = await post(
			'/flow_requests/export',
			params('flow_echo', null, 100, '2024-01-01T00:00:02.000Z', '2024-01-01T00:00:04.000Z'),
		);
		expect(ranged.json.results.map((x: any) => x.modified)).toEqual([
			'2024-01-01T00:00:02.000Z',
			'2024-01-01T00:00:03.000Z',
			'2024-01-01T00:00:04.000Z',
		]);
		expect((await post('/flow_requests/export', params('flow_nope', null, 10))).json).toEqual({
			results: [],
			nextCursor: null,
			hasMore: false,
		});
		const badLimit = await post('/flow_requests/export', params('flow_echo', null, 1001));
		expect([badLimit.status, badLimit.json.error.message]).toEqual([
			400,
			expect.stringContaining('limit'),
		]);
		expect((await post('/flow_requests/export', params('flow_echo', '!!', 10))).status).toBe(400);
		expect(
			(await post('/flow_requests/export', params('flow_echo', null, 10, 'yesterday'))).status,
		).toBe(400);
	});
});

describe('documents', () => {
	async function upload(
		data: Buffer,
		fileName: string,
		logicalPath: string,
		meta?: string,
		key = emu.keys.project,
	) {
		const fd = new FormData();
		fd.append('document', new Blob([new Uint8Array(data)], { type: 'application/pdf' }), fileName);
		fd.append('fileName', fileName);
		fd.append('logicalPath', logicalPath);
		if (meta !== undefined) fd.append('meta', meta);
		const res = await fetch(`${project()}/documents/upload-file`, {
			method: 'POST',
			headers: { Authorization: key },
			body: fd,
		});
		return { status: res.status, json: await res.json() };
	}

	it('uploads, versions by logical path, and serves byte-identical signed downloads until expiry', async () => {
		const bytes = randomBytes(3 * 1024 * 1024);
		const up = await upload(bytes, 'report ü.pdf', 'reports/q1.pdf', '{"team":"sales"}');
		expect(up.json).toMatchObject({
			fileName: 'report ü.pdf',
			contentType: 'application/pdf',
			sizeBytes: bytes.length,
			logicalPath: 'reports/q1.pdf',
			version: 'v1',
			meta: { team: 'sales' },
		});
		expect(emu.requestsTo('uploadFile')[0].body.file.sha256).toBe(
			createHash('sha256').update(bytes).digest('hex'),
		);
		const again = await upload(Buffer.from('v2'), 'report ü.pdf', 'reports/q1.pdf');
		expect([again.json.id, again.json.version]).toEqual([up.json.id, 'v2']);
		const loaded = await post('/documents/loadByLogicalPath', params('reports/q1.pdf'));
		expect(loaded.json.results).toMatchObject({ id: up.json.id, version: 'v2' });
		expect((await post('/documents/loadByLogicalPath', params('nope'))).status).toBe(404);

		const link = await post(
			'/documents/getTemporarySignedUrl',
			params(up.json, new Date(Date.now() + 400).toISOString()),
		);
		const dl = await fetch(link.json.results);
		expect(dl.headers.get('content-type')).toBe('application/pdf');
		expect(dl.headers.get('content-disposition')).toContain('attachment');
		expect(Buffer.from(await dl.arrayBuffer()).equals(bytes)).toBe(true);
		expect((await fetch(link.json.results.replace(/sig=[0-9a-f]/, 'sig=x'))).status).toBe(403);
		await new Promise((r) => setTimeout(r, 500));
		const expired = await fetch(link.json.results);
		expect([expired.status, (await expired.json()).error.message]).toEqual([
			403,
			'Request has expired',
		]);
		expect(
			(await post('/documents/getTemporarySignedUrl', params(up.json, '2000-01-01T00:00:00.000Z')))
				.status,
		).toBe(400);
	});

	it('refuses bad uploads', async () => {
		expect((await upload(Buffer.from('x'), 'a.txt', 'a', 'not json')).status).toBe(400);
		expect(
			(await upload(Buffer.from('x'), 'a.txt', 'a', undefined, emu.keys.noUpload)).status,
		).toBe(403);
		const fd = new FormData();
		fd.append('fileName', 'a.txt');
		const res = await fetch(`${project()}/documents/upload-file`, {
			method: 'POST',
			headers: { Authorization: emu.keys.project },
			body: fd,
		});
		expect([res.status, (await res.json()).error.message]).toEqual([
			400,
			expect.stringContaining('document'),
		]);
	});
});

describe('indexes', () => {
	it('reads status and queries metadata', async () => {
		expect((await post('/indexes/getStatus', params('idx_docs'))).json.results).toMatchObject({
			id: 'idx_docs',
			status: 'ready',
		});
		expect((await post('/indexes/getStatus', params('idx_building'))).json.results).toMatchObject({
			status: 'indexing',
			progress: 0.4,
		});
		const q = await post(
			'/indexes/queryMetadata',
			params('idx_docs', { lang: 'en', page: { $gte: 2 } }),
		);
		expect(q.json.results.map((r: any) => r.metadata.page)).toEqual([2, 3]);
		const inQ = await post(
			'/indexes/queryMetadata',
			params('idx_docs', { source: { $in: ['faq.md'] }, $limit: 1 }),
		);
		expect(inQ.json.results).toHaveLength(1);
		const bad = await post('/indexes/queryMetadata', params('idx_docs', 'lang=en'));
		expect([bad.status, bad.json.error.message]).toEqual([
			400,
			expect.stringContaining('params[1] (query)'),
		]);
		expect((await post('/indexes/getStatus', params('idx_nope'))).status).toBe(404);
		expect((await post('/indexes/getStatus', { params: 'idx_docs' })).status).toBe(400);
	});
});

describe('faults', () => {
	it('answers 429/500/503 before running, by injectFault or header', async () => {
		emu.injectFault('429', { endpoint: 'run', retryAfter: 2 });
		const r = await post('/flows/flow_echo/run', { body: {} });
		expect([r.status, r.headers.get('retry-after'), r.json.error.code]).toEqual([
			429,
			'2',
			'RATE_LIMITED',
		]);
		expect(emu.records.size).toBe(0);
		expect((await post('/flows/flow_echo/run', { body: {} })).status).toBe(200);
		emu.injectFault({ type: '500' }, { endpoint: 'getStatus', times: 2 });
		expect((await post('/indexes/queryMetadata', params('idx_docs', {}))).status).toBe(200);
		expect((await post('/indexes/getStatus', params('idx_docs'))).status).toBe(500);
		expect((await post('/indexes/getStatus', params('idx_docs'))).status).toBe(500);
		const h = await post('/indexes/getStatus', params('idx_docs'), {
			headers: { 'X-Emulator-Fault': '503;retryAfter=3' },
		});
		expect([h.status, h.headers.get('retry-after'), h.json.error.code]).toEqual([
			503,
			'3',
			'UNAVAILABLE',
		]);
	});

	it('drop, malformed, no-final, token-delay, big-stream, huge-line', async () => {
		const drop = await streamRun(
			'flow_echo',
			{ text_input: 'a b c d e' },
			{},
			{ 'X-Emulator-Fault': 'drop;afterEvents=4' },
		);
		expect(drop.error).toBeDefined();
		expect(drop.rawLines).toHaveLength(4);
		expect([...emu.records.values()][0].status).toBe('running');
		const bad = await streamRun(
			'flow_echo',
			{ text_input: 'a b' },
			{},
			{ 'X-Emulator-Fault': 'malformed;afterEvents=2' },
		);
		expect(() => JSON.parse(bad.rawLines[2])).toThrow();
		expect(JSON.parse(bad.rawLines[bad.rawLines.length - 1]).status).toBe('complete');
		const nf = (await streamRun('flow_echo', {}, {}, { 'X-Emulator-Fault': 'no-final' })).lines();
		expect(nf[nf.length - 1].tag).toBe('onFlowEnd');
		const t0 = Date.now();
		await streamRun(
			'flow_echo',
			{ text_input: 'a b c d' },
			{},
			{ 'X-Emulator-Fault': 'token-delay;ms=60' },
		);
		expect(Date.now() - t0).toBeGreaterThanOrEqual(250);
		const many = await streamRun(
			'flow_echo',
			{},
			{ stream_events: ['onNewToken'] },
			{ 'X-Emulator-Fault': 'big-stream;tokens=3000' },
		);
		expect(many.rawLines).toHaveLength(3001);
		const huge = await streamRun(
			'flow_echo',
			{},
			{},
			{ 'X-Emulator-Fault': 'huge-line;bytes=3000000' },
		);
		expect(Buffer.byteLength(huge.rawLines[1]) + 1).toBe(3000000);
	});

	it('split-utf8 cuts chunks inside characters and lines, yet the stream reassembles', async () => {
		const s = await streamRun(
			'flow_echo',
			{ text_input: 'héllo wörld 🎉' },
			{},
			{ 'X-Emulator-Fault': 'split-utf8' },
		);
		expect(s.chunks.some((c) => (c[0] & 0xc0) === 0x80)).toBe(true);
		expect(s.chunks.some((c) => c[c.length - 1] !== 0x0a)).toBe(true);
		expect(tokensOf(s.lines())).toBe('Echo #1: héllo wörld 🎉');
	});

	it('stall keeps the connection open until the client aborts or close()', async () => {
		const ac = new AbortController();
		setTimeout(() => ac.abort(), 300);
		const stalled = await streamRun(
			'flow_echo',
			{ text_input: 'a b c' },
			{},
			{ 'X-Emulator-Fault': 'stall;afterEvents=2' },
			ac.signal,
		);
		expect(stalled.error?.name).toBe('AbortError');
		expect(stalled.rawLines).toHaveLength(2);
		const other = await startEmulator();
		const res = await fetch(
			`${other.baseUrl}/accounts/acc_demo/projects/proj_demo/flows/flow_echo/run`,
			{
				method: 'POST',
				headers: { Authorization: other.keys.project, 'X-Emulator-Fault': 'stall' },
				body: JSON.stringify({ body: {}, options: { stream: 'http' } }),
			},
		);
		const reading = res.text().then(
			() => 'ended',
			(e: Error) => `failed: ${e.message}`,
		);
		await other.close();
		expect(await reading).toMatch(/^failed/);
	});

	it('same-cursor and empty-page on export', async () => {
		emu.seedFlowRequests('flow_echo', 5, { start: 0 });
		emu.injectFault('same-cursor', { endpoint: 'export', times: 2 });
		const p1 = await post('/flow_requests/export', params('flow_echo', null, 2));
		const p2 = await post('/flow_requests/export', params('flow_echo', p1.json.nextCursor, 2));
		expect(p2.json).toMatchObject({ hasMore: true, nextCursor: p1.json.nextCursor });
		emu.injectFault('empty-page', { endpoint: 'export' });
		const e1 = await post('/flow_requests/export', params('flow_echo', null, 2));
		expect(e1.json).toMatchObject({ results: [], hasMore: true, nextCursor: expect.any(String) });
		const e2 = await post('/flow_requests/export', params('flow_echo', e1.json.nextCursor, 2));
		expect(e2.json.results).toHaveLength(2);
	});
});
