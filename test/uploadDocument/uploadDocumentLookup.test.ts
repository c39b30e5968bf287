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
});
