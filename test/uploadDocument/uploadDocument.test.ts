/** BotDojo Upload Document: Upload (binaries in memory and on disk, names, meta, versions). */
import { randomBytes } from 'node:crypto';

import type { IDataObject } from 'n8n-workflow';

import { runNode, setBinaryMode } from '../helpers/engine';
import { useEmulator } from '../helpers/emulator';
import { fileItem, sha256, uploadNode, uploadsReceived as uploadsReceivedBy } from './documents';

const env = useEmulator();

const uploadsReceived = () => uploadsReceivedBy(env.emu);

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
});
