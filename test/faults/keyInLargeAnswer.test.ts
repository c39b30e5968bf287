/**
 * README "What happens when…", Key echoed, at size: an export page of ~64 MB (within the 128 MiB
 * answer bound) whose many small values quote the key once. The key is redacted, and nothing but
 * the path to it is copied: the other records leave the node as the very objects parsed, so that
 * memory stays near the answer's own size (before, every object was copied: +3.7 GB at 64 MB).
 */
import { runNode } from '../helpers/engine';
import { exportRequestsNode } from '../helpers/exportRequestsNode';
import { API_KEY, useScriptedServer } from '../transport/scriptedServer';

const RECORDS = 86_000;
const QUOTING = 31_337; // the record whose last value quotes the key

/** One record of ~1 KB: many small values, as a flow's logged request. */
function record(at: number): string {
	const fields = Array.from({ length: 24 }, (_, field) => `"f${field}":"value ${field} of ${at}"`);
	const last = at === QUOTING ? `Authorization: ${API_KEY}` : 'nothing secret here';
	const id = String(at).padStart(6, '0');
	const modified = new Date(Date.UTC(2026, 0, 1) + at * 1000).toISOString();
	return `{"id":"req_${id}","flow_id":"flow_1","status":"complete","modified":"${modified}","body":{${fields.join(',')},"list":[1,2,3,{"x":"y"}],"last":"${last}"}}`;
}

const botdojo = useScriptedServer();
const page = `{"results":[${Array.from({ length: RECORDS }, (_, at) => record(at)).join(',')}],"nextCursor":null,"hasMore":false}`;

describe('What happens when… a ~64 MB answer quotes the API key once', () => {
	it('Export Requests redacts it, and outputs the other records as parsed (not copied)', async () => {
		expect(page.length).toBeGreaterThan(60 * 1024 * 1024);
		botdojo.answer = (_, res) => {
			res.writeHead(200, { 'content-type': 'application/json' });
			res.end(page);
		};
		// The parsed page, as n8n's jsonParse gave it to the node.
		const parsed: unknown[] = [];
		const parse = JSON.parse;
		const spy = jest.spyOn(JSON, 'parse').mockImplementation((text: string, reviver) => {
			const value = parse(text, reviver) as unknown;
			if (text.length === page.length) parsed.push(value);
			return value;
		});
		try {
			const { items, error } = await runNode({
				node: exportRequestsNode('flow_1', { returnAll: true, simplify: false }),
				credentials: botdojo.credentials,
			});
			expect(error).toBeUndefined();
			expect(items).toHaveLength(RECORDS);
			const body = (at: number) => items[at].json.body as Record<string, unknown>;
			expect(body(QUOTING).last).toBe('Authorization: ***');
			expect(body(QUOTING).f0).toBe(`value 0 of ${QUOTING}`);
			const [{ results }] = parsed as Array<{ results: object[] }>;
			// The records without the key are the parsed objects themselves; the one with it a copy.
			const same = items.filter((item, at) => item.json === results[at]).length;
			expect(same).toBe(RECORDS - 1);
			expect(items[QUOTING].json).not.toBe(results[QUOTING]);
			expect(JSON.stringify(items[QUOTING].json)).not.toContain(API_KEY);
		} finally {
			spy.mockRestore();
		}
	});
});
