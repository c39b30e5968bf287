/**
 * Return All cannot run away past the dates asked for: a service that keeps sending new cursors
 * and records that advance, but dated outside From Date–To Date (the spec: inclusive, on
 * `modified`), is stopped on the first such page. It ran 549 pages in 5 s, and on until Stop.
 */
import { runNode } from '../helpers/engine';
import { useScriptedServer } from './scriptedServer';

const botdojo = useScriptedServer();

/** Page n: one record dated `start` + n days, a new cursor, more to come (it gives up at 5,000). */
function advancingFrom(start: string) {
	botdojo.requests.length = 0;
	botdojo.answer = (_, res) => {
		const page = botdojo.requests.length;
		const modified = new Date(Date.parse(start) + page * 86_400_000).toISOString();
		const results = [{ id: `req_${page}`, flow_id: 'flow_1', status: 'complete', modified }];
		res.writeHead(200, { 'content-type': 'application/json' });
		res.end(JSON.stringify({ results, nextCursor: `c${page}`, hasMore: page < 5000 }));
	};
}

const exportBetween = (dates: Record<string, string>) => ({
	type: 'botDojoExportRequests',
	typeVersion: 1.1,
	parameters: { operation: 'export', flowId: 'flow_1', returnAll: true, options: dates },
});

describe('Export with Return All, records outside the dates asked for', () => {
	it('after To Date: stopped on the first page past it, nothing returned', async () => {
		advancingFrom('2026-01-01T00:00:00.000Z');
		const { items, error } = await runNode({
			node: exportBetween({ toDate: '2026-01-03T00:00:00.000Z' }),
			credentials: botdojo.credentials,
		});
		expect(items).toEqual([]);
		expect(error?.message).toBe(
			`BotDojo's export of flow "flow_1" stopped making progress on page 3: its records are not within the dates asked for (modified 2026-01-04T00:00:00.000Z, To Date 2026-01-03T00:00:00.000Z), so the pages would not end`,
		);
		expect(botdojo.requests).toHaveLength(3);
	});

	it('before From Date: stopped on the first page', async () => {
		advancingFrom('2025-01-01T00:00:00.000Z');
		const { error } = await runNode({
			node: exportBetween({ fromDate: '2026-01-01T00:00:00.000Z' }),
			credentials: botdojo.credentials,
		});
		expect(error?.message).toBe(
			`BotDojo's export of flow "flow_1" stopped making progress on page 1: its records are not within the dates asked for (modified 2025-01-02T00:00:00.000Z, From Date 2026-01-01T00:00:00.000Z), so the pages would not end`,
		);
		expect(botdojo.requests).toHaveLength(1);
	});

	it('records on the To Date itself are within (inclusive) and returned', async () => {
		advancingFrom('2026-01-01T00:00:00.000Z');
		const answer = botdojo.answer;
		botdojo.answer = (request, res) => {
			// The last page: hasMore false after the record dated exactly To Date.
			if (botdojo.requests.length === 2) {
				const results = [
					{
						id: 'req_2',
						flow_id: 'flow_1',
						status: 'complete',
						modified: '2026-01-03T00:00:00.000Z',
					},
				];
				res.writeHead(200, { 'content-type': 'application/json' });
				res.end(JSON.stringify({ results, nextCursor: null, hasMore: false }));
				return;
			}
			return answer(request, res);
		};
		const { items, error } = await runNode({
			node: exportBetween({
				fromDate: '2026-01-02T00:00:00.000Z',
				toDate: '2026-01-03T00:00:00.000Z',
			}),
			credentials: botdojo.credentials,
		});
		expect(error).toBeUndefined();
		expect(items.map((item) => item.json.flowRequestId)).toEqual(['req_1', 'req_2']);
	});
});
