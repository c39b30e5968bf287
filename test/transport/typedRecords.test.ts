/**
 * Typed answers (api.ts): each record is checked against the spec's field types before a node
 * reads it. A field of the wrong type is an error naming the field; an id that is a number (bad
 * data, an import) is kept as it is, so that one such record cannot stop an export or the Trigger.
 */
import { runNode } from '../helpers/engine';
import { useScriptedServer } from './scriptedServer';

const botdojo = useScriptedServer();

function answerRecords(results: unknown[]) {
	botdojo.answer = (_, res) => {
		res.writeHead(200, { 'content-type': 'application/json' });
		res.end(JSON.stringify({ results, hasMore: false }));
	};
}

const exportAll = {
	type: 'botDojoExportRequests',
	typeVersion: 1.1,
	parameters: { operation: 'export', flowId: 'flow_1', returnAll: true, simplify: false },
};

const MODIFIED = '2026-01-01T00:00:00.000Z';

describe('Export Requests: records checked against the spec before they are output', () => {
	it('a field of the wrong type is an error that names it, with nothing output', async () => {
		answerRecords([
			{ id: 'req_1', modified: MODIFIED, status: 'complete' },
			{ id: 'req_2', modified: MODIFIED, status: 'complete', duration: 'slow' },
		]);
		const { items, error } = await runNode({ node: exportAll, credentials: botdojo.credentials });
		expect(items).toEqual([]);
		expect(error?.message).toMatch(/records whose "duration" is a number/);
	});

	it('an id that is an object is refused the same way', async () => {
		answerRecords([{ id: { nested: 1 }, modified: MODIFIED }]);
		const { error } = await runNode({ node: exportAll, credentials: botdojo.credentials });
		expect(error?.message).toMatch(/records whose "id" is a string or a number/);
	});

	it('ids that are numbers and unknown fields come out as sent', async () => {
		const records = [
			{ id: 1, modified: MODIFIED, extra: { kept: true } },
			{ id: '1', modified: '2026-01-01T00:00:01.000Z' },
		];
		answerRecords(records);
		const { items, error } = await runNode({ node: exportAll, credentials: botdojo.credentials });
		expect(error).toBeUndefined();
		expect(items.map((item) => item.json)).toEqual(records);
	});
});
