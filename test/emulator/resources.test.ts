/* eslint-disable @typescript-eslint/no-explicit-any -- test code: reads loosely typed JSON */
/** The BotDojo emulator itself: sessions, export, documents and indexes. */
import { createHash, randomBytes } from 'node:crypto';

import { until } from '../helpers/until';
import { params, useRawEmulator } from './http';

const env = useRawEmulator();
const { post, project } = env;

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
		env.emu.seedFlowRequests('flow_echo', 25, { start, errorEvery: 5, runningEvery: 7 });
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
		key = env.emu.keys.project,
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
		expect(env.emu.requestsTo('uploadFile')[0].body.file.sha256).toBe(
			createHash('sha256').update(bytes).digest('hex'),
		);
		const again = await upload(Buffer.from('v2'), 'report ü.pdf', 'reports/q1.pdf');
		expect([again.json.id, again.json.version]).toEqual([up.json.id, 'v2']);
		const loaded = await post('/documents/loadByLogicalPath', params('reports/q1.pdf'));
		expect(loaded.json.results).toMatchObject({ id: up.json.id, version: 'v2' });
		expect((await post('/documents/loadByLogicalPath', params('nope'))).status).toBe(404);

		const signLink = async (validForMs: number) => {
			const expires = new Date(Date.now() + validForMs).toISOString();
			return {
				expires,
				link: await post('/documents/getTemporarySignedUrl', params(up.json, expires)),
			};
		};
		// A link valid long enough for a loaded machine, then one left to expire.
		const { link } = await signLink(60_000);
		const dl = await fetch(link.json.results);
		expect(dl.headers.get('content-type')).toBe('application/pdf');
		expect(dl.headers.get('content-disposition')).toContain('attachment');
		expect(Buffer.from(await dl.arrayBuffer()).equals(bytes)).toBe(true);
		expect((await fetch(link.json.results.replace(/sig=[0-9a-f]/, 'sig=x'))).status).toBe(403);
		const short = await signLink(1000);
		await until(() => Date.now() > Date.parse(short.expires) + 10);
		const expired = await fetch(short.link.json.results);
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
			(await upload(Buffer.from('x'), 'a.txt', 'a', undefined, env.emu.keys.noUpload)).status,
		).toBe(403);
		const fd = new FormData();
		fd.append('fileName', 'a.txt');
		const res = await fetch(`${project()}/documents/upload-file`, {
			method: 'POST',
			headers: { Authorization: env.emu.keys.project },
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
