/**
 * The shared runner (nodes/shared/execution.ts), driven through a real node (Query Index) in
 * n8n-core's WorkflowExecute against the emulator.
 */
import { startRun, runNode } from '../helpers/engine';
import { useEmulator } from '../helpers/emulator';
import { until } from '../helpers/until';

const env = useEmulator();

function queryIndex(
	parameters: Record<string, unknown>,
	extra: { continueOnFail?: boolean; onError?: 'continueErrorOutput' } = {},
) {
	return { type: 'botDojoQueryIndex', parameters: parameters as never, ...extra };
}

const perItemQuery = {
	operation: 'queryMetadata',
	indexId: '={{ $json.index }}',
	query: '={{ $json.q }}',
};

describe('runner: items are checked before anything is sent', () => {
	it('sends nothing when a later item is invalid, and names that item', async () => {
		const { error } = await runNode({
			node: queryIndex(perItemQuery),
			items: [
				{ json: { index: 'idx_docs', q: { lang: 'de' } } },
				{ json: { index: 'idx_docs', q: { page: 3 } } },
				{ json: { index: 'idx_docs', q: '[1]' } },
			],
			credentials: env.credentials,
		});
		expect(error?.message).toMatch(/^Query: must be a JSON object but is an array/);
		expect(error?.context?.itemIndex).toBe(2);
		expect(env.emu.requests).toHaveLength(0);
	});
});

describe('runner: output', () => {
	it('keeps input order and pairs every record, also when an item gives several', async () => {
		const { items, error } = await runNode({
			node: queryIndex(perItemQuery),
			items: [
				{ json: { index: 'idx_docs', q: { source: 'handbook.pdf', page: { $gte: 2 } } } },
				{ json: { index: 'idx_docs', q: { lang: 'fr' } } },
				{ json: { index: 'idx_docs', q: { lang: 'de' } } },
			],
			credentials: env.credentials,
		});
		expect(error).toBeUndefined();
		expect(
			items.map((item) => [item.pairedItem, (item.json.metadata as { page: number }).page]),
		).toEqual([
			[{ item: 0 }, 2],
			[{ item: 0 }, 3],
			[{ item: 2 }, 1],
		]);
	});
});

describe('runner: Continue On Fail', () => {
	it('On Error › Continue (using error output): failed items go to the error output, the others to the success output', async () => {
		const { items, errorItems, error } = await runNode({
			node: queryIndex(perItemQuery, { onError: 'continueErrorOutput' }),
			items: [
				{ json: { index: 'idx_nope', q: {} } },
				{ json: { index: 'idx_docs', q: { lang: 'de' } } },
			],
			credentials: env.credentials,
		});
		expect(error).toBeUndefined();
		expect(items).toHaveLength(1);
		expect(items[0].json.metadata).toMatchObject({ lang: 'de' });
		expect(errorItems).toHaveLength(1);
		// n8n adds the failed item's input fields to what the node gave: { error, details }.
		expect(errorItems[0].json).toEqual({
			index: 'idx_nope',
			q: {},
			error: expect.stringMatching(/^BotDojo could not find it/),
			details: expect.stringMatching(/^Check the Index ID/),
		});
	});

	it('gives every failed item the one shape { error, description } and keeps the others', async () => {
		const { items, error } = await runNode({
			node: queryIndex(perItemQuery, { continueOnFail: true }),
			items: [
				{ json: { index: '', q: {} } },
				{ json: { index: 'idx_nope', q: {} } },
				{ json: { index: 'idx_docs', q: { lang: 'de' } } },
			],
			credentials: env.credentials,
		});
		expect(error).toBeUndefined();
		expect(items).toHaveLength(3);
		for (const failed of items.slice(0, 2)) {
			expect(Object.keys(failed.json).sort()).toEqual(['description', 'error']);
			expect(typeof failed.json.error).toBe('string');
			expect(typeof failed.json.description).toBe('string');
		}
		expect(items[0].json.error).toMatch(/^Index ID: is empty/);
		expect(items[1].json.error).toMatch(/could not find/);
		expect(items[2].json.metadata).toMatchObject({ lang: 'de' });
		expect(items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		// The invalid item sent nothing; the other two did.
		expect(env.emu.requestsTo('queryMetadata')).toHaveLength(2);
	});
});

describe("runner: n8n's own errors", () => {
	it('lets an expression error through as n8n raised it, not wrapped', async () => {
		const { error } = await runNode({
			node: queryIndex({
				operation: 'getStatus',
				indexId: '={{ $("No Such Node").item.json.index }}',
			}),
			credentials: env.credentials,
		});
		expect(error?.name).toBe('ExpressionError');
		expect(error?.message).toBe("Referenced node doesn't exist");
		expect(env.emu.requests).toHaveLength(0);
	});
});

describe("runner: the execution's Stop", () => {
	it('starts no further item once the execution is stopped', async () => {
		env.emu.injectFault('429;retryAfter=30', { endpoint: 'getStatus' });
		const started = startRun({
			node: queryIndex({ operation: 'getStatus', indexId: 'idx_docs' }),
			items: [{ json: {} }, { json: {} }, { json: {} }],
			credentials: env.credentials,
		});
		// The first item is waiting out BotDojo's Retry-After when the user presses Stop.
		await until(() => env.emu.requestsTo('getStatus').length === 1);
		started.cancel();
		const { items } = await started.result;
		expect(items).toEqual([]);
		expect(env.emu.requestsTo('getStatus')).toHaveLength(1);
	});
});

describe('router: the operation', () => {
	it('an operation the node does not have is an error naming it and the known ones; nothing is sent', async () => {
		const { items, error } = await runNode({
			node: queryIndex({ operation: 'deleteIndex', indexId: 'idx_docs' }),
			credentials: env.credentials,
		});
		expect(items).toEqual([]);
		expect(error?.message).toBe('The operation "deleteIndex" is not known');
		expect(error?.description).toBe('Choose one of: getStatus, queryMetadata.');
		expect(env.emu.requests).toHaveLength(0);
	});
});
