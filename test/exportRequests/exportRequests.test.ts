import type { IDataObject } from 'n8n-workflow';

import { runNode } from '../helpers/engine';
import { useEmulator } from '../helpers/emulator';

const env = useEmulator();

const FLOW = 'flow_export';
const START = Date.parse('2024-03-01T00:00:00.000Z');

function exportNode(parameters: IDataObject, extra: { continueOnFail?: boolean } = {}) {
	return {
		type: 'botDojoExportRequests',
		parameters: { operation: 'export', flowId: FLOW, ...parameters } as never,
		...extra,
	};
}

/** Ids BotDojo exports for the flow, in export order (status complete/error, by modified). */
function exportableIds(records: Array<{ id: string; status: string }>): string[] {
	return records
		.filter((r) => r.status === 'complete' || r.status === 'error')
		.map((r: { id: string }) => r.id);
}

function exportBodies(): unknown[][] {
	return env.emu
		.requestsTo('export')
		.map((request: { body: { params: unknown[] } }) => request.body.params);
}

describe('BotDojo Export Requests: Export', () => {
	it.each([1000, 7])(
		'exports 5,000 requests with page size %i: every finished one, once, in order',
		async (pageSize) => {
			const seeded = env.emu.seedFlowRequests(FLOW, 5000, {
				start: START,
				stepMs: 1000,
				errorEvery: 9,
				runningEvery: 13,
			});
			env.emu.seedFlowRequests('flow_other', 20, { start: START });
			const expected = exportableIds(seeded);

			const { items, error } = await runNode({
				node: exportNode({ returnAll: true, options: { pageSize } }),
				credentials: env.credentials,
			});

			expect(error).toBeUndefined();
			const ids = items.map((item) => item.json.id);
			expect(ids).toEqual(expected);
			expect(new Set(ids).size).toBe(ids.length);
			expect(items.every((item) => item.json.flow_id === FLOW)).toBe(true);
			expect(items.every((item) => (item.pairedItem as { item: number }).item === 0)).toBe(true);

			const bodies = exportBodies();
			expect(bodies).toHaveLength(Math.ceil(expected.length / pageSize));
			expect(bodies[0]).toEqual([FLOW, null, pageSize]);
			const cursors = bodies.slice(1).map((params) => params[1]);
			expect(cursors.every((cursor) => typeof cursor === 'string' && cursor !== '')).toBe(true);
			expect(new Set(cursors).size).toBe(cursors.length);
			expect(bodies.every((params) => params[0] === FLOW && params[2] === pageSize)).toBe(true);
		},
	);

	it('filters on modified, inclusive at both ends, with dates in any zone sent as UTC', async () => {
		const seeded = env.emu.seedFlowRequests(FLOW, 10, { start: START, stepMs: 60_000 });
		// Record 3 at 00:03Z given as +02:00; record 7 at 00:07Z given as a Tokyo DateTime.
		const { items, error } = await runNode({
			node: exportNode({
				returnAll: true,
				options: {
					fromDate: '2024-03-01T02:03:00+02:00',
					toDate: "={{ DateTime.fromISO('2024-03-01T09:07:00', { zone: 'Asia/Tokyo' }) }}",
				},
			}),
			credentials: env.credentials,
		});
		expect(error).toBeUndefined();
		expect(items.map((item) => item.json.id)).toEqual(
			seeded.slice(3, 8).map((r: { id: string }) => r.id),
		);
		expect(exportBodies()).toEqual([
			[FLOW, null, 1000, '2024-03-01T00:03:00.000Z', '2024-03-01T00:07:00.000Z'],
		]);
	});

	it("reads a date without a zone in the workflow's time zone (America/New_York, DST-aware)", async () => {
		await runNode({
			node: exportNode({
				limit: 5,
				options: { fromDate: '2024-01-15T00:00:00', toDate: '2024-07-15T08:30:00.25' },
			}),
			credentials: env.credentials,
		});
		expect(exportBodies()[0].slice(3)).toEqual([
			'2024-01-15T05:00:00.000Z',
			'2024-07-15T12:30:00.250Z',
		]);
	});

	it('stops at Limit, asking each page for no more than the requests still wanted', async () => {
		const seeded = env.emu.seedFlowRequests(FLOW, 100, { start: START });
		const { items } = await runNode({
			node: exportNode({ returnAll: false, limit: 25, options: { pageSize: 10 } }),
			credentials: env.credentials,
		});
		expect(items.map((item) => item.json.id)).toEqual(
			seeded.slice(0, 25).map((r: { id: string }) => r.id),
		);
		expect(exportBodies().map((params) => params[2])).toEqual([10, 10, 5]);
		expect(items[24].json).not.toHaveProperty('_cursor');
	});

	it('resumes a later run from the cursor it handed out, without gap or repeat', async () => {
		const seeded = env.emu.seedFlowRequests(FLOW, 60, { start: START, errorEvery: 4 });
		const first = await runNode({
			node: exportNode({ limit: 25, options: { pageSize: 10, includeCursor: true } }),
			credentials: env.credentials,
		});
		const last = first.items[first.items.length - 1].json;
		expect(first.items).toHaveLength(25);
		expect(last._hasMore).toBe(true);
		expect(typeof last._cursor).toBe('string');
		expect(first.items.slice(0, -1).some((item) => '_cursor' in item.json)).toBe(false);

		const second = await runNode({
			node: exportNode({
				returnAll: true,
				options: { startCursor: last._cursor, includeCursor: true },
			}),
			credentials: env.credentials,
		});
		expect(exportBodies().at(-1)?.[1]).toBe(last._cursor);
		expect(second.items).toHaveLength(35);
		expect(second.items.at(-1)?.json._hasMore).toBe(false);
		const ids = [...first.items, ...second.items].map((item) => item.json.id);
		expect(ids).toEqual(seeded.map((r: { id: string }) => r.id));
	});

	it('refuses a Start Cursor that is not a cursor before sending, naming the option', async () => {
		env.emu.seedFlowRequests(FLOW, 5, { start: START });
		const { error } = await runNode({
			node: exportNode({ returnAll: true, options: { startCursor: 'not a cursor!' } }),
			credentials: env.credentials,
		});
		expect(error?.message).toMatch(/^Start Cursor: "not a cursor!" is not a cursor \(.*base64/);
		expect(error?.description).toMatch(/_cursor of an earlier export/);
		expect(exportBodies()).toEqual([]);
	});

	it("reports a well-formed cursor BotDojo does not know with BotDojo's own words", async () => {
		env.emu.seedFlowRequests(FLOW, 5, { start: START });
		const unknown = Buffer.from('{"nope":1}').toString('base64');
		const { error } = await runNode({
			node: exportNode({ returnAll: true, options: { startCursor: unknown } }),
			credentials: env.credentials,
		});
		expect(error?.message).toMatch(/^BotDojo refused the request as invalid: .*afterCursor/);
		expect(exportBodies()).toEqual([[FLOW, unknown, 1000]]);
	});

	it('outputs nothing for a flow without finished requests', async () => {
		env.emu.seedFlowRequests(FLOW, 3, { start: START, runningEvery: 1 });
		const { items, error } = await runNode({
			node: exportNode({ returnAll: true, options: { includeCursor: true } }),
			credentials: env.credentials,
		});
		expect(error).toBeUndefined();
		expect(items).toEqual([]);
		expect(exportBodies()).toHaveLength(1);
	});

	it.each([
		[{ returnAll: false, limit: 0 }, /^Limit: 0 is out of range$/],
		[{ returnAll: false, limit: 2.5 }, /^Limit: 2\.5 is not a whole number/],
		[{ returnAll: true, options: { pageSize: 1001 } }, /^Page Size: 1001 is out of range/],
		[{ returnAll: true, options: { pageSize: 0 } }, /^Page Size: 0 is out of range/],
		[
			{ returnAll: true, options: { fromDate: 'last tuesday' } },
			/^From Date: "last tuesday" is not an ISO 8601 date/,
		],
		[
			{ returnAll: true, options: { toDate: '2024-02-30T10:00:00Z' } },
			/^To Date: "2024-02-30T10:00:00Z" is not a real date/,
		],
		[
			{ returnAll: true, options: { fromDate: '={{ 1714550400 }}' } },
			/^From Date: is the number 1714550400/,
		],
		[
			{
				returnAll: true,
				options: { fromDate: '2024-05-02T00:00:00Z', toDate: '2024-05-01T00:00:00Z' },
			},
			/^From Date: 2024-05-02T00:00:00.000Z is after To Date/,
		],
		[{ flowId: '  ', returnAll: true }, /^Flow ID: is empty/],
	])('refuses bad input %j before any request', async (parameters, message) => {
		const { items, error } = await runNode({
			node: exportNode(parameters as IDataObject),
			credentials: env.credentials,
		});
		expect(error?.message).toMatch(message);
		expect(items).toEqual([]);
		expect(env.emu.requestsTo('export')).toEqual([]);
	});

	it('refuses an Output that is none of its options (no fallback to Items), naming the item and the valid ones', async () => {
		env.emu.seedFlowRequests(FLOW, 3, { start: START });
		const { items, error } = await runNode({
			node: exportNode({ returnAll: true, output: 'csv' }),
			items: [{ json: {} }, { json: {} }],
			credentials: env.credentials,
		});
		expect(error?.message).toBe('Output: "csv" is not one of its options');
		expect(error?.context?.itemIndex).toBe(0);
		expect(error?.description).toBe(
			'Choose one of: Items (items), CSV File (csvFile), JSON Lines File (jsonLinesFile).',
		);
		expect(items).toEqual([]);
		expect(env.emu.requestsTo('export')).toEqual([]);
	});

	it('with Continue On Fail, a failing item gives an error item and the others still export', async () => {
		const seeded = env.emu.seedFlowRequests(FLOW, 12, { start: START, stepMs: 60_000 });
		const { items, error } = await runNode({
			node: exportNode(
				{ returnAll: true, options: { fromDate: '={{ $json.from }}', pageSize: 5 } },
				{ continueOnFail: true },
			),
			items: [
				{ json: { from: '2024-03-01T00:09:00Z' } },
				{ json: { from: 'soon' } },
				{ json: { from: '2024-03-01T00:10:00Z' } },
			],
			credentials: env.credentials,
		});
		expect(error).toBeUndefined();
		expect(items.map((item) => [item.json.id ?? item.json.error, item.pairedItem])).toEqual([
			[seeded[9].id, { item: 0 }],
			[seeded[10].id, { item: 0 }],
			[seeded[11].id, { item: 0 }],
			['From Date: "soon" is not an ISO 8601 date', { item: 1 }],
			[seeded[10].id, { item: 2 }],
			[seeded[11].id, { item: 2 }],
		]);
		expect(env.emu.requestsTo('export')).toHaveLength(2);
	});

	it('with Continue On Fail, an item whose export fails mid-way outputs only its error', async () => {
		env.emu.seedFlowRequests(FLOW, 30, { start: START });
		env.emu.injectFault('empty-page', { endpoint: 'export', times: 1 });
		const { items } = await runNode({
			node: exportNode({ returnAll: true, options: { pageSize: 10 } }, { continueOnFail: true }),
			items: [{ json: {} }, { json: {} }],
			credentials: env.credentials,
		});
		expect(items[0]).toEqual({
			json: {
				error: expect.stringMatching(/stopped making progress/),
				description: expect.stringMatching(/cannot loop forever/),
			},
			pairedItem: { item: 0 },
		});
		expect(items.slice(1)).toHaveLength(30);
		expect(items.slice(1).every((item) => (item.pairedItem as { item: number }).item === 1)).toBe(
			true,
		);
	});

	it('maps a wrong API key to the 401 message, without the key in it', async () => {
		const { error } = await runNode({
			node: { ...exportNode({ returnAll: true }), credentialId: 'wrong' },
			credentials: env.credentials,
		});
		expect(error?.message).toBe('BotDojo rejected the API key (401)');
		expect(JSON.stringify(error)).not.toContain(env.credentials.wrong.apiKey);
		expect(env.emu.requestsTo('export')).toHaveLength(1);
	});

	it('maps a flow key to the 403 message that says a project key is needed', async () => {
		const { error } = await runNode({
			node: { ...exportNode({ returnAll: true }), credentialId: 'flow' },
			credentials: env.credentials,
		});
		expect(error?.message).toBe('The API key is not allowed to do this (403)');
		expect(error?.description).toMatch(/need a project key/);
	});
});
