/* eslint-disable @n8n/community-nodes/no-restricted-globals -- test code: runs in jest, never in n8n */
/** The BotDojo emulator itself: every fault it can inject. */
import { startEmulator } from '../../emulator';
import { until } from '../helpers/until';
import { params, tokensOf, useRawEmulator } from './http';

const env = useRawEmulator();
const { post, streamRun } = env;

describe('faults', () => {
	it('answers 429/500/503 before running, by injectFault or header', async () => {
		env.emu.injectFault('429', { endpoint: 'run', retryAfter: 2 });
		const r = await post('/flows/flow_echo/run', { body: {} });
		expect([r.status, r.headers.get('retry-after'), r.json.error.code]).toEqual([
			429,
			'2',
			'RATE_LIMITED',
		]);
		expect(env.emu.records.size).toBe(0);
		expect((await post('/flows/flow_echo/run', { body: {} })).status).toBe(200);
		env.emu.injectFault({ type: '500' }, { endpoint: 'getStatus', times: 2 });
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

	it('whole-answer: a streamed run is answered with the whole record as JSON', async () => {
		const r = await post(
			'/flows/flow_echo/run',
			{ body: { text_input: 'a b' }, options: { stream: 'http' } },
			{ headers: { 'X-Emulator-Fault': 'whole-answer' } },
		);
		expect(r.status).toBe(200);
		expect(r.headers.get('content-type')).toMatch(/^application\/json/);
		expect(r.json.status).toBe('complete');
		expect(r.json.requestParams.stream).toBe('http');
	});

	it.each([
		['streamed', { stream: 'http' }],
		['blocking', {}],
	])(
		'whole-answer-stall and -drop: a %s run answered whole stops after half its bytes',
		async (_kind, options) => {
			const start = async (fault: string) => {
				const aborting = new AbortController();
				const res = await fetch(`${env.project()}/flows/flow_echo/run`, {
					method: 'POST',
					headers: {
						'Content-Type': 'application/json',
						Authorization: env.emu.keys.project,
						'X-Emulator-Fault': fault,
					},
					body: JSON.stringify({ body: { text_input: 'a b' }, options }),
					signal: aborting.signal,
				});
				const reader = res.body!.getReader();
				const first = await reader.read();
				return { res, reader, first, aborting };
			};
			const stall = await start('whole-answer-stall');
			expect(stall.res.headers.get('content-type')).toMatch(/^application\/json/);
			const whole = Number(stall.res.headers.get('content-length'));
			expect(stall.first.value!.length).toBe(whole >> 1);
			// The answer is not over until the client goes away; the flow ran.
			const [request] = env.emu.requestsTo('run');
			expect(request.respondedAt).toBeUndefined();
			expect([...env.emu.records.values()][0].status).toBe('complete');
			stall.aborting.abort();
			await until(() => request.respondedAt !== undefined);

			const drop = await start('whole-answer-drop');
			expect(drop.first.value!.length).toBeLessThan(Number(drop.res.headers.get('content-length')));
			await expect(
				(async () => {
					for (;;) if ((await drop.reader.read()).done) return 'ended';
				})(),
			).rejects.toThrow();
		},
	);

	it('drop, malformed, no-final, token-delay, big-stream, huge-line', async () => {
		const drop = await streamRun(
			'flow_echo',
			{ text_input: 'a b c d e' },
			{},
			{ 'X-Emulator-Fault': 'drop;afterEvents=4' },
		);
		expect(drop.error).toBeDefined();
		expect(drop.rawLines).toHaveLength(4);
		expect([...env.emu.records.values()][0].status).toBe('running');
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
		env.emu.seedFlowRequests('flow_echo', 5, { start: 0 });
		env.emu.injectFault('same-cursor', { endpoint: 'export', times: 2 });
		const p1 = await post('/flow_requests/export', params('flow_echo', null, 2));
		const p2 = await post('/flow_requests/export', params('flow_echo', p1.json.nextCursor, 2));
		expect(p2.json).toMatchObject({ hasMore: true, nextCursor: p1.json.nextCursor });
		env.emu.injectFault('empty-page', { endpoint: 'export' });
		const e1 = await post('/flow_requests/export', params('flow_echo', null, 2));
		expect(e1.json).toMatchObject({ results: [], hasMore: true, nextCursor: expect.any(String) });
		const e2 = await post('/flow_requests/export', params('flow_echo', e1.json.nextCursor, 2));
		expect(e2.json.results).toHaveLength(2);
	});
});
