/** BotDojo Upload Document: Get by Logical Path. */
import { runNode } from '../helpers/engine';
import { useEmulator } from '../helpers/emulator';
import { fileItem, uploadNode, type Logged } from './documents';

const env = useEmulator();

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
		expect(error?.description).toContain('logical path "kb/none.md"');
	});
});
