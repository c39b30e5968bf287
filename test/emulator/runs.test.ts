/** The BotDojo emulator itself: auth, runs and streaming. */
import { params, tokensOf, useRawEmulator } from './http';

const env = useRawEmulator();
const { post, streamRun } = env;

describe('auth', () => {
	const run = (key: string | null, flow = 'flow_echo') =>
		post(`/flows/${flow}/run`, { body: { text_input: 'x' } }, { key });

	it('refuses missing, Bearer-prefixed and unknown keys with 401', async () => {
		expect((await run(null)).status).toBe(401);
		const bearer = await run(`Bearer ${env.emu.keys.project}`);
		expect(bearer.status).toBe(401);
		expect(bearer.json.error).toEqual({
			code: 'UNAUTHORIZED',
			message: expect.stringContaining('Bearer'),
		});
		expect((await run('bdk_nope')).status).toBe(401);
	});

	it('limits the flow key to running flow_echo', async () => {
		expect((await run(env.emu.keys.flow)).status).toBe(200);
		const other = await run(env.emu.keys.flow, 'flow_tools');
		expect(other.status).toBe(403);
		expect(other.json.error.message).toMatch(/flow key limited to flow 'flow_echo'/);
		expect(
			(await post('/indexes/getStatus', params('idx_docs'), { key: env.emu.keys.flow })).status,
		).toBe(403);
	});

	it('checks account and project ids after auth, naming them', async () => {
		const acc = await post('', params('idx_docs'), {
			url: `${env.emu.baseUrl}/accounts/acc_x/projects/proj_demo/indexes/getStatus`,
		});
		expect(acc.status).toBe(404);
		expect(acc.json.error.message).toContain('acc_x');
		const proj = await post('', params('idx_docs'), {
			url: `${env.emu.baseUrl}/accounts/acc_demo/projects/proj_x/indexes/getStatus`,
		});
		expect(proj.json.error.message).toContain('proj_x');
		const unauth = await post('', params('idx_docs'), {
			key: 'bad',
			url: `${env.emu.baseUrl}/accounts/acc_x/projects/proj_x/indexes/getStatus`,
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
