/** BotDojo Upload Document: Get Download Link, with and without downloading the file. */
import { randomBytes } from 'node:crypto';

import type { IDataObject } from 'n8n-workflow';

import { readBinary, runNode, setBinaryMode } from '../helpers/engine';
import { useEmulator } from '../helpers/emulator';
import { linkNode, sha256, uploadThroughNode, type Logged } from './documents';

const env = useEmulator();

const upload = async (content: Buffer, logicalPath: string, fileName: string, mimeType: string) =>
	await uploadThroughNode(env, content, logicalPath, fileName, mimeType);

afterEach(async () => await setBinaryMode('memory'));

describe('BotDojo Upload Document: Get Download Link', () => {
	it('looks the path up, then asks for a link with the record and an ISO UTC expiry', async () => {
		const record = await upload(Buffer.from('hello'), 'docs/hello.txt', 'hello.txt', 'text/plain');
		const before = Date.now();
		const { items, error } = await runNode({
			node: linkNode({ logicalPath: 'docs/hello.txt', expiresInMinutes: 30 }),
			credentials: env.credentials,
		});
		expect(error).toBeUndefined();
		const [lookup] = env.emu.requestsTo('loadByLogicalPath');
		expect(lookup.body).toEqual({ params: ['docs/hello.txt'] });
		const [linkRequest] = env.emu.requestsTo('getTemporarySignedUrl');
		const [doc, expires] = (linkRequest.body as { params: [IDataObject, string] }).params;
		expect(doc).toEqual(record);
		expect(expires).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
		const minutes = (Date.parse(expires) - before) / 60_000;
		expect(minutes).toBeGreaterThan(29.9);
		expect(minutes).toBeLessThanOrEqual(30.1);
		expect(items[0].json).toEqual({
			url: expect.stringMatching(/^http:\/\//),
			expires,
			document: record,
		});
		expect(items[0].binary).toBeUndefined();
		expect(env.emu.requestsTo('download')).toHaveLength(0);
	});

	it('takes the document as a record (e.g. {{ $json }} after Upload) without a lookup', async () => {
		const record = await upload(Buffer.from('hello'), 'docs/hello.txt', 'hello.txt', 'text/plain');
		env.emu.requests.length = 0;
		const { items, error } = await runNode({
			node: linkNode({
				documentSource: 'record',
				documentRecord: '={{ $json }}',
				expiresInMinutes: 5,
			}),
			items: [{ json: record }],
			credentials: env.credentials,
		});
		expect(error).toBeUndefined();
		expect(env.emu.requests.map((request: Logged) => request.endpoint)).toEqual([
			'getTemporarySignedUrl',
		]);
		expect((env.emu.requests[0].body as { params: unknown[] }).params[0]).toEqual(record);
		expect(items[0].json.document).toEqual(record);
	});

	it('accepts the record as JSON text and an expiry date in another time zone', async () => {
		const record = await upload(Buffer.from('hello'), 'docs/hello.txt', 'hello.txt', 'text/plain');
		const at = new Date(Date.now() + 3 * 3600_000);
		at.setUTCMilliseconds(0);
		const inTokyo = new Date(at.getTime() + 9 * 3600_000).toISOString().replace('.000Z', '+09:00');
		const { items, error } = await runNode({
			node: linkNode({
				documentSource: 'record',
				documentRecord: JSON.stringify(record),
				expiresMode: 'date',
				expiresAt: inTokyo,
			}),
			credentials: env.credentials,
		});
		expect(error).toBeUndefined();
		expect(items[0].json.expires).toBe(at.toISOString());
	});

	it.each(['memory', 'filesystem'] as const)(
		'downloads the file in the same step, byte-identical to the upload (%s binary mode)',
		async (mode) => {
			await setBinaryMode(mode);
			const content = randomBytes(2 * 1024 * 1024 + 3);
			await upload(content, 'data/blob.bin', 'blob.bin', 'application/x-custom');
			const { items, error } = await runNode({
				node: linkNode({
					logicalPath: 'data/blob.bin',
					downloadFile: true,
					outputBinaryPropertyName: 'file',
				}),
				credentials: env.credentials,
			});
			expect(error).toBeUndefined();
			const binary = items[0].binary?.file;
			expect(binary).toMatchObject({ fileName: 'blob.bin', mimeType: 'application/x-custom' });
			if (mode === 'filesystem') expect(binary?.id).toMatch(/^filesystem-v2:/);
			const downloaded = await readBinary(binary!);
			expect(sha256(downloaded)).toBe(sha256(content));
			expect(items[0].json.url).toEqual(expect.any(String));
		},
	);

	it('sends no BotDojo API key to the signed link', async () => {
		await upload(Buffer.from('secret stuff'), 'docs/s.txt', 's.txt', 'text/plain');
		const { error } = await runNode({
			node: linkNode({ logicalPath: 'docs/s.txt', downloadFile: true }),
			credentials: env.credentials,
		});
		expect(error).toBeUndefined();
		const [download] = env.emu.requestsTo('download');
		expect(download.status).toBe(200);
		expect(download.headers.authorization).toBeUndefined();
		expect(JSON.stringify(download.headers)).not.toContain(env.credentials.main.apiKey);
	});

	it('a link that a user downloads without the node is byte-identical too', async () => {
		const content = randomBytes(100_000);
		await upload(content, 'docs/r.bin', 'r.bin', 'application/octet-stream');
		const { items } = await runNode({
			node: linkNode({ logicalPath: 'docs/r.bin' }),
			credentials: env.credentials,
		});
		const response = await fetch(items[0].json.url as string);
		expect(response.status).toBe(200);
		expect(sha256(Buffer.from(await response.arrayBuffer()))).toBe(sha256(content));
	});

	it('names the logical path when the document to link does not exist', async () => {
		const { error } = await runNode({
			node: linkNode({ logicalPath: 'docs/none.txt' }),
			credentials: env.credentials,
		});
		expect(error?.message).toMatch(/could not find/);
		expect(error?.description).toContain('Check the Logical Path in the node ("docs/none.txt")');
		expect(error?.description).toContain(
			'Path called: POST /api/v1/accounts/acc_demo/projects/proj_demo/documents/loadByLogicalPath.',
		);
		expect(env.emu.requestsTo('getTemporarySignedUrl')).toHaveLength(0);
	});

	it('with Continue On Fail, a missing document becomes an error item and the others get links', async () => {
		await upload(Buffer.from('a'), 'docs/a.txt', 'a.txt', 'text/plain');
		const { items, error } = await runNode({
			node: linkNode({ logicalPath: '={{ $json.path }}' }, { continueOnFail: true }),
			items: [
				{ json: { path: 'docs/a.txt' } },
				{ json: { path: 'docs/gone.txt' } },
				{ json: { path: 'docs/a.txt' } },
			],
			credentials: env.credentials,
		});
		expect(error).toBeUndefined();
		expect(items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		expect(items[0].json.url).toEqual(expect.any(String));
		expect(items[1].json.error).toMatch(/could not find/);
		expect(items[2].json.url).toEqual(expect.any(String));
	});
});
