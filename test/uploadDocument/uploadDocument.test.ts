/** BotDojo Upload Document: Upload and Get by Logical Path, through n8n's engine and the emulator. */
import { createHash, randomBytes } from 'node:crypto';

import type { IDataObject } from 'n8n-workflow';

import { runNode, setBinaryMode, type NodeUnderTest } from '../helpers/engine';
import { useEmulator } from '../helpers/emulator';

const env = useEmulator();

/** The fields of the emulator's request log that these tests read. */
type Logged = { endpoint: string; status?: number; body?: unknown; headers: IDataObject };

function uploadNode(parameters: Record<string, unknown>, extra: Partial<NodeUnderTest> = {}) {
	return {
		type: 'botDojoUploadDocument',
		parameters: { operation: 'upload', ...parameters } as never,
		...extra,
	};
}

function fileItem(content: Buffer, fileName = 'report.pdf', mimeType = 'application/pdf') {
	return {
		json: { name: fileName },
		binary: { data: { base64: content.toString('base64'), fileName, mimeType } },
	};
}

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

/** What the emulator received as the multipart body of each upload. */
function uploadsReceived(): IDataObject[] {
	return env.emu.requestsTo('uploadFile').map((request: Logged) => request.body as IDataObject);
}

afterEach(async () => await setBinaryMode('memory'));

describe('BotDojo Upload Document: Upload', () => {
	it('uploads an in-memory binary as multipart with the file, its name, path and type', async () => {
		const content = randomBytes(70_000);
		const { items, error } = await runNode({
			node: uploadNode({ logicalPath: 'docs/report.pdf' }),
			items: [fileItem(content)],
			credentials: env.credentials,
		});
		expect(error).toBeUndefined();
		expect(items).toHaveLength(1);
		expect(items[0].json).toMatchObject({
			fileName: 'report.pdf',
			contentType: 'application/pdf',
			sizeBytes: content.length,
			logicalPath: 'docs/report.pdf',
			version: 'v1',
		});
		expect(items[0].json.id).toEqual(expect.any(String));
		expect(items[0].pairedItem).toEqual({ item: 0 });
		const [received] = uploadsReceived();
		expect(received).toEqual({
			fields: { fileName: 'report.pdf', logicalPath: 'docs/report.pdf', meta: undefined },
			file: {
				fileName: 'report.pdf',
				contentType: 'application/pdf',
				size: content.length,
				sha256: sha256(content),
			},
		});
		const request = env.emu.requestsTo('uploadFile')[0];
		expect(request.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
		expect(request.headers.authorization).toBe(env.credentials.main.apiKey);
	});

	it('uploads a binary that n8n stores on disk (filesystem mode) byte for byte', async () => {
		await setBinaryMode('filesystem');
		const content = randomBytes(3 * 1024 * 1024 + 17); // several read chunks
		const { items, error } = await runNode({
			node: uploadNode({ logicalPath: 'docs/big.bin' }),
			items: [fileItem(content, 'big.bin', 'application/octet-stream')],
			credentials: env.credentials,
		});
		expect(error).toBeUndefined();
		expect(items[0].json).toMatchObject({ sizeBytes: content.length, fileName: 'big.bin' });
		expect(uploadsReceived()[0].file).toEqual({
			fileName: 'big.bin',
			contentType: 'application/octet-stream',
			size: content.length,
			sha256: sha256(content),
		});
	});

	it('proves the filesystem mode is real: the input binary has an id and no inline data', async () => {
		await setBinaryMode('filesystem');
		const { run } = await runNode({
			node: uploadNode({ logicalPath: 'docs/a.txt' }),
			items: [fileItem(Buffer.from('on disk'), 'a.txt', 'text/plain')],
			credentials: env.credentials,
		});
		const source = run.data.resultData.runData.Items[0].data?.main[0]?.[0];
		expect(source?.binary?.data.id).toMatch(/^filesystem-v2:/);
		expect(source?.binary?.data.data).toBe('filesystem-v2');
		expect(uploadsReceived()[0].file).toMatchObject({
			size: 7,
			sha256: sha256(Buffer.from('on disk')),
		});
	});

	it('uses a custom file name, keeping the content type of the binary', async () => {
		const { items, error } = await runNode({
			node: uploadNode({ logicalPath: 'docs/q3.pdf', fileName: '={{ "Q3 " + $json.name }}' }),
			items: [fileItem(Buffer.from('%PDF-1.7'))],
			credentials: env.credentials,
		});
		expect(error).toBeUndefined();
		expect(items[0].json).toMatchObject({
			fileName: 'Q3 report.pdf',
			contentType: 'application/pdf',
		});
		expect(uploadsReceived()[0]).toMatchObject({
			fields: { fileName: 'Q3 report.pdf' },
			file: { fileName: 'Q3 report.pdf', contentType: 'application/pdf' },
		});
	});

	it('keeps a file name with accents, quotes and non-Latin letters exactly', async () => {
		const fileName = 'Résumé "final" 日本語.pdf';
		const { items, error } = await runNode({
			node: uploadNode({ logicalPath: 'docs/résumé.pdf', fileName }),
			items: [fileItem(Buffer.from('%PDF-1.7'))],
			credentials: env.credentials,
		});
		expect(error).toBeUndefined();
		expect(items[0].json).toMatchObject({ fileName, logicalPath: 'docs/résumé.pdf' });
		expect(uploadsReceived()[0].fields).toMatchObject({ fileName, logicalPath: 'docs/résumé.pdf' });
	});

	it('sends meta given as fields as a JSON object of text values', async () => {
		const { items, error } = await runNode({
			node: uploadNode({
				logicalPath: 'docs/report.pdf',
				metaMode: 'fields',
				metaFields: {
					field: [
						{ name: 'source', value: 'crm' },
						{ name: 'owner', value: '={{ $json.name }}' },
					],
				},
			}),
			items: [fileItem(Buffer.from('x'))],
			credentials: env.credentials,
		});
		expect(error).toBeUndefined();
		expect(JSON.parse((uploadsReceived()[0].fields as IDataObject).meta as string)).toEqual({
			source: 'crm',
			owner: 'report.pdf',
		});
		expect(items[0].json.meta).toEqual({ source: 'crm', owner: 'report.pdf' });
	});

	it('sends meta given as JSON unchanged, nested values and numbers included', async () => {
		const meta = { source: 'crm', pages: 12, tags: ['q3', 'sales'], owner: { team: 'emea' } };
		const { error } = await runNode({
			node: uploadNode({
				logicalPath: 'docs/report.pdf',
				metaMode: 'json',
				metaJson: JSON.stringify(meta),
			}),
			items: [fileItem(Buffer.from('x'))],
			credentials: env.credentials,
		});
		expect(error).toBeUndefined();
		expect(JSON.parse((uploadsReceived()[0].fields as IDataObject).meta as string)).toEqual(meta);
	});

	it('falls back to the last path segment when the binary has no file name', async () => {
		const item = fileItem(Buffer.from('x'));
		(item.binary.data as { fileName?: string }).fileName = '';
		const { items, error } = await runNode({
			node: uploadNode({ logicalPath: 'kb/faq.md' }),
			items: [item],
			credentials: env.credentials,
		});
		expect(error).toBeUndefined();
		expect(items[0].json.fileName).toBe('faq.md');
	});

	it('re-uploading the same logical path makes a new version of the same document', async () => {
		const first = await runNode({
			node: uploadNode({ logicalPath: 'docs/policy.txt' }),
			items: [fileItem(Buffer.from('version one'), 'policy.txt', 'text/plain')],
			credentials: env.credentials,
		});
		const second = await runNode({
			node: uploadNode({ logicalPath: 'docs/policy.txt' }),
			items: [fileItem(Buffer.from('version two!'), 'policy.txt', 'text/plain')],
			credentials: env.credentials,
		});
		expect(second.items[0].json.id).toBe(first.items[0].json.id);
		expect(first.items[0].json.version).toBe('v1');
		expect(second.items[0].json.version).toBe('v2');
		expect(second.items[0].json.sizeBytes).toBe(12);
	});

	it('uploads one document per item, each under its own path', async () => {
		const { items, error } = await runNode({
			node: uploadNode({ logicalPath: '=docs/{{ $json.name }}' }),
			items: [
				fileItem(Buffer.from('a'), 'a.txt', 'text/plain'),
				fileItem(Buffer.from('bb'), 'b.txt', 'text/plain'),
			],
			credentials: env.credentials,
		});
		expect(error).toBeUndefined();
		expect(
			items.map((item) => [item.json.logicalPath, item.json.sizeBytes, item.pairedItem]),
		).toEqual([
			['docs/a.txt', 1, { item: 0 }],
			['docs/b.txt', 2, { item: 1 }],
		]);
	});

	it('says plainly that a key without upload permission may not upload (403)', async () => {
		const { error } = await runNode({
			node: uploadNode({ logicalPath: 'docs/report.pdf' }, { credentialId: 'noUpload' }),
			items: [fileItem(Buffer.from('x'))],
			credentials: env.credentials,
		});
		expect(error?.message).toBe(
			'The API key may not upload documents (403): it lacks upload permission, or it is a flow key',
		);
		expect(error?.description).toContain('lacks the permission to upload files');
		expect(JSON.stringify(error)).not.toContain(env.credentials.noUpload.apiKey);
		expect(env.emu.requestsTo('uploadFile').map((request: Logged) => request.status)).toEqual([
			403,
		]);
	});

	it('refuses a flow key with the same message', async () => {
		const { error } = await runNode({
			node: uploadNode({ logicalPath: 'docs/report.pdf' }, { credentialId: 'flow' }),
			items: [fileItem(Buffer.from('x'))],
			credentials: env.credentials,
		});
		expect(error?.message).toMatch(/lacks upload permission, or it is a flow key/);
		expect(error?.description).toContain('flow key');
	});

	it('retries an upload that BotDojo turned away with 503, sending the whole file again', async () => {
		env.emu.injectFault('503', { endpoint: 'uploadFile', retryAfter: 0 });
		const content = randomBytes(10_000);
		const { items, error } = await runNode({
			node: uploadNode({ logicalPath: 'docs/retry.bin' }),
			items: [fileItem(content, 'retry.bin', 'application/octet-stream')],
			credentials: env.credentials,
		});
		expect(error).toBeUndefined();
		expect(items[0].json.version).toBe('v1');
		const requests = env.emu.requestsTo('uploadFile');
		expect(requests.map((request: Logged) => request.status)).toEqual([503, 200]);
		expect(requests.map((request: Logged) => (request.body as IDataObject).file)).toEqual([
			expect.objectContaining({ sha256: sha256(content) }),
			expect.objectContaining({ sha256: sha256(content) }),
		]);
	});

	it('with Continue On Fail, a refused item becomes an error item and the others go through', async () => {
		const { items, error } = await runNode({
			node: uploadNode({ logicalPath: '={{ $json.path }}' }, { continueOnFail: true }),
			items: [
				{ ...fileItem(Buffer.from('a'), 'a.txt', 'text/plain'), json: { path: 'docs/a.txt' } },
				{ ...fileItem(Buffer.from('b'), 'b.txt', 'text/plain'), json: { path: '../b.txt' } },
				{ json: { path: 'docs/c.txt' } },
				{ ...fileItem(Buffer.from('d'), 'd.txt', 'text/plain'), json: { path: 'docs/d.txt' } },
			],
			credentials: env.credentials,
		});
		expect(error).toBeUndefined();
		expect(items.map((item) => item.pairedItem)).toEqual([
			{ item: 0 },
			{ item: 1 },
			{ item: 2 },
			{ item: 3 },
		]);
		expect(items[0].json.logicalPath).toBe('docs/a.txt');
		expect(items[1].json.error).toMatch(/^Logical Path: contains a "\.\." segment .*$/);
		expect(items[2].json.error).toMatch(/^Input Binary Field: the item has no binary field "data"/);
		expect(items[3].json.logicalPath).toBe('docs/d.txt');
		expect(uploadsReceived().map((body) => (body.fields as IDataObject).logicalPath)).toEqual([
			'docs/a.txt',
			'docs/d.txt',
		]);
	});

	it('with Continue On Fail, an API error becomes an error item too', async () => {
		const { items, error } = await runNode({
			node: uploadNode(
				{ logicalPath: 'docs/a.txt' },
				{ credentialId: 'noUpload', continueOnFail: true },
			),
			items: [fileItem(Buffer.from('a')), fileItem(Buffer.from('b'))],
			credentials: env.credentials,
		});
		expect(error).toBeUndefined();
		expect(items).toHaveLength(2);
		expect(items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
		for (const item of items) expect(item.json.error).toMatch(/may not upload documents \(403\)/);
	});
});

describe('BotDojo Upload Document: Get by Logical Path', () => {
	it('returns the latest record of the document in one positional call', async () => {
		const uploaded = await runNode({
			node: uploadNode({ logicalPath: 'kb/faq.md' }),
			items: [fileItem(Buffer.from('# FAQ'), 'faq.md', 'text/markdown')],
			credentials: env.credentials,
		});
		const { items, error } = await runNode({
			node: {
				type: 'botDojoUploadDocument',
				parameters: { operation: 'getByLogicalPath', logicalPath: 'kb/faq.md' },
			},
			credentials: env.credentials,
		});
		expect(error).toBeUndefined();
		expect(items[0].json).toEqual(uploaded.items[0].json);
		expect(env.emu.requestsTo('loadByLogicalPath').map((request: Logged) => request.body)).toEqual([
			{ params: ['kb/faq.md'] },
		]);
	});

	it('names the logical path when there is no such document', async () => {
		const { error } = await runNode({
			node: {
				type: 'botDojoUploadDocument',
				parameters: { operation: 'getByLogicalPath', logicalPath: 'kb/none.md' },
			},
			credentials: env.credentials,
		});
		expect(error?.message).toMatch(/could not find/);
		expect(error?.message).toContain('kb/none.md');
		// Only the id BotDojo said was missing, and the path called (issue 13 §7).
		expect(error?.description).toContain('Check the Logical Path in the node ("kb/none.md")');
		expect(error?.description).not.toContain('proj_demo"');
		expect(error?.description).toContain(
			'Path called: POST /api/v1/accounts/acc_demo/projects/proj_demo/documents/loadByLogicalPath.',
		);
	});
});
