import { runNode } from '../helpers/engine';
import { useEmulator } from '../helpers/emulator';

const env = useEmulator();

function queryIndex(parameters: Record<string, unknown>, extra: { continueOnFail?: boolean } = {}) {
	return { type: 'botDojoQueryIndex', parameters: parameters as never, ...extra };
}

describe('BotDojo Query Index: Get Status', () => {
	it('returns the status of the index named in each item', async () => {
		const { items, error } = await runNode({
			node: queryIndex({ operation: 'getStatus', indexId: '={{ $json.index }}' }),
			items: [{ json: { index: 'idx_docs' } }, { json: { index: 'idx_building' } }],
			credentials: env.credentials,
		});
		expect(error).toBeUndefined();
		expect(items.map((item) => [item.json.id, item.json.status])).toEqual([
			['idx_docs', 'ready'],
			['idx_building', 'indexing'],
		]);
		expect(items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
		expect(env.emu.requestsTo('getStatus').map((request) => request.body)).toEqual([
			{ params: ['idx_docs'] },
			{ params: ['idx_building'] },
		]);
	});

	it('refuses an empty index id before any request, naming the item', async () => {
		const { error } = await runNode({
			node: queryIndex({ operation: 'getStatus', indexId: '={{ $json.index }}' }),
			items: [{ json: { index: 'idx_docs' } }, { json: { index: '  ' } }],
			credentials: env.credentials,
		});
		expect(error?.message).toBe('Index ID: is empty');
		expect(error?.context?.itemIndex).toBe(1);
		expect(error?.description).toMatch(/idx_docs/);
		const sent = env.emu.requestsTo('getStatus').map((request) => request.body);
		expect(sent.every((body) => JSON.stringify(body) === '{"params":["idx_docs"]}')).toBe(true);
	});
});

describe('BotDojo Query Index: Get Many by Metadata', () => {
	it('returns one item per matching chunk', async () => {
		const { items, error } = await runNode({
			node: queryIndex({
				operation: 'queryMetadata',
				indexId: 'idx_docs',
				query: '{ "source": "handbook.pdf", "page": { "$gte": 2 } }',
			}),
			credentials: env.credentials,
		});
		expect(error).toBeUndefined();
		expect(items.map((item) => (item.json.metadata as { page: number }).page)).toEqual([2, 3]);
		expect(items.every((item) => typeof item.json.text === 'string')).toBe(true);
		expect(items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 0 }]);
		expect(env.emu.requestsTo('queryMetadata')[0].body).toEqual({
			params: ['idx_docs', { source: 'handbook.pdf', page: { $gte: 2 } }],
		});
	});

	it('accepts the query as an object from an expression', async () => {
		const { items } = await runNode({
			node: queryIndex({
				operation: 'queryMetadata',
				indexId: 'idx_docs',
				query: '={{ $json.q }}',
			}),
			items: [{ json: { q: { lang: 'de' } } }],
			credentials: env.credentials,
		});
		expect(items.map((item) => item.json.metadata)).toEqual([
			{ source: 'faq.md', page: 1, lang: 'de' },
		]);
	});

	it('returns no items when nothing matches', async () => {
		const { items, error } = await runNode({
			node: queryIndex({
				operation: 'queryMetadata',
				indexId: 'idx_docs',
				query: '{"lang": "fr"}',
			}),
			credentials: env.credentials,
		});
		expect(error).toBeUndefined();
		expect(items).toEqual([]);
	});

	it.each([
		['invalid JSON', '{ "source": ', /Query: is not valid JSON .*/],
		['an array', '[1, 2]', /Query: must be a JSON object but is an array/],
		['a number', '42', /Query: must be a JSON object but is a number/],
	])('refuses a query that is %s before any request', async (_kind, query, message) => {
		const { error } = await runNode({
			node: queryIndex({ operation: 'queryMetadata', indexId: 'idx_docs', query }),
			credentials: env.credentials,
		});
		expect(error?.message).toMatch(message);
		expect(env.emu.requests).toHaveLength(0);
	});

	it('shows what BotDojo said about a query it refuses (400)', async () => {
		const { error } = await runNode({
			node: queryIndex({
				operation: 'queryMetadata',
				indexId: 'idx_docs',
				query: '{"page": {"$near": 1}}',
			}),
			credentials: env.credentials,
		});
		expect(error?.message).toMatch(/refused the request as invalid: .*unknown operator "\$near"/);
		expect((error as { httpCode?: string }).httpCode).toBe('400');
	});

	it('keeps the other items with Continue On Fail, each paired to its input', async () => {
		const { items, error } = await runNode({
			node: queryIndex(
				{ operation: 'queryMetadata', indexId: '={{ $json.index }}', query: '={{ $json.q }}' },
				{ continueOnFail: true },
			),
			items: [
				{ json: { index: 'idx_docs', q: { lang: 'de' } } },
				{ json: { index: 'idx_docs', q: 'not json' } },
				{ json: { index: 'idx_nope', q: {} } },
				{ json: { index: 'idx_docs', q: { page: 3 } } },
			],
			credentials: env.credentials,
		});
		expect(error).toBeUndefined();
		expect(items).toHaveLength(4);
		expect(items[0].json.metadata).toMatchObject({ lang: 'de' });
		expect(items[1].json.error).toMatch(/Query: is not valid JSON/);
		expect(items[2].json.error).toMatch(/could not find/);
		expect(items[3].json.metadata).toMatchObject({ page: 3 });
		expect(items.map((item) => item.pairedItem)).toEqual([
			{ item: 0 },
			{ item: 1 },
			{ item: 2 },
			{ item: 3 },
		]);
	});
});
