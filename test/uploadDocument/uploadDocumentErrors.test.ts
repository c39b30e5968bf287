/** BotDojo Upload Document: Upload refused (403, flow key), retried (503), and Continue On Fail. */
import { randomBytes } from 'node:crypto';

import type { IDataObject } from 'n8n-workflow';

import { runNode } from '../helpers/engine';
import { useEmulator } from '../helpers/emulator';
import {
	fileItem,
	sha256,
	uploadNode,
	uploadsReceived as uploadsReceivedBy,
	type Logged,
} from './documents';

const env = useEmulator();

const uploadsReceived = () => uploadsReceivedBy(env.emu);

describe('BotDojo Upload Document: Upload', () => {
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
		expect(items[1].json.error).toMatch(
			/^Logical Path: contains a "\.\." segment \("\.\.\/b\.txt"\)$/,
		);
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
