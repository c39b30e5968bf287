/**
 * Return All cannot run away: a service that keeps sending a new cursor (and more records) with
 * every page, but whose records do not move forward in the export's order (modified, then id),
 * is stopped with an error on the first page that does not advance.
 */
import { runNode } from '../helpers/engine';
import { useScriptedServer } from './scriptedServer';

const botdojo = useScriptedServer();

/** Pages of the same two records, each with a new cursor; it gives up after 200 pages. */
function samePageWithNewCursors(records: Array<{ id: string; modified: string }>) {
	botdojo.requests.length = 0;
	botdojo.answer = (_, res) => {
		const page = botdojo.requests.length;
		const nextCursor = Buffer.from(`page-${page}`).toString('base64');
		res.writeHead(200, { 'content-type': 'application/json' });
		res.end(JSON.stringify({ results: records, nextCursor, hasMore: page < 200 }));
	};
}

const exportAll = {
	type: 'botDojoExportRequests',
	typeVersion: 1.1,
	parameters: { operation: 'export', flowId: 'flow_1', returnAll: true },
};

describe('Export with Return All, pages with new cursors that do not advance', () => {
	it('the same records again: stopped on page 2, nothing returned', async () => {
		samePageWithNewCursors([
			{ id: 'req_1', modified: '2026-01-01T00:00:00.000Z' },
			{ id: 'req_2', modified: '2026-01-01T00:00:01.000Z' },
		]);
		const { items, error } = await runNode({ node: exportAll, credentials: botdojo.credentials });
		expect(items).toEqual([]);
		expect(error?.message).toBe(
			`BotDojo's export of flow "flow_1" stopped making progress on page 2: its records are not after the previous page's last one (modified 2026-01-01T00:00:01.000Z, id "req_2"), so the pages are not advancing`,
		);
		expect(botdojo.requests).toHaveLength(2);
	});

	it('records that go back in time: stopped on page 2', async () => {
		let page = 0;
		botdojo.requests.length = 0;
		botdojo.answer = (_, res) => {
			page++;
			const modified = new Date(Date.UTC(2026, 0, 10 - page)).toISOString();
			const results = [{ id: `req_${page}`, modified }];
			const nextCursor = Buffer.from(`page-${page}`).toString('base64');
			res.writeHead(200, { 'content-type': 'application/json' });
			res.end(JSON.stringify({ results, nextCursor, hasMore: page < 200 }));
		};
		const { error } = await runNode({ node: exportAll, credentials: botdojo.credentials });
		expect(error?.message).toMatch(/stopped making progress on page 2: its records are not after/);
		expect(botdojo.requests).toHaveLength(2);
	});
});
