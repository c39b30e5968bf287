/** BotDojo Trigger: each new request fires once, however BotDojo pages, times and changes it. */
import type { IDataObject } from 'n8n-workflow';

import { LOOK_BACK_MS } from '../../nodes/BotDojoTrigger/helpers/newRecords';
import {
	env,
	FLOW,
	STATE_KEY,
	poll,
	stateOf,
	iso,
	add,
	modify,
	emittedIds,
	exportParams,
	activate,
} from './triggerHarness';

/** One poll whose second export page never comes: it ends at its budget (3 s of reading) with
 *  the first page, and the next poll goes on at its cursor. */
async function pollOnePage(staticData: IDataObject) {
	const stall = env.emu.injectFault('stall', { endpoint: 'export', skip: 1 });
	try {
		return await poll(staticData, {}, 'trigger', 6000);
	} finally {
		stall.times = 0; // a poll with one page only leaves it unused
	}
}

describe('BotDojo Trigger', () => {
	it('emits each new request once over three polls, including one at the boundary timestamp', async () => {
		const staticData: IDataObject = {};
		const before = Date.now();
		const mark = await activate(staticData);
		expect(mark).toBeGreaterThanOrEqual(before);
		expect(stateOf(staticData)).toEqual({
			flowId: FLOW,
			highWaterMark: iso(mark),
			windowStart: iso(mark),
			handled: {},
		});

		// Between polls 1 and 2: three finished requests (two at the same moment), one running.
		add('req_a', mark + 1000);
		add('req_b', mark + 2000, 'error');
		add('req_c', mark + 2000);
		add('req_running', mark + 1500, 'running');
		add('req_other_flow', mark + 1500, 'complete', 'flow_other');
		const second = await poll(staticData);
		expect(emittedIds(second.output)).toEqual(['req_a', 'req_b', 'req_c']);
		expect(second.output?.[0][1].json.status).toBe('error');
		// Each export starts LOOK_BACK_MS (10 minutes) before the mark, for requests that show up late.
		expect(exportParams().at(-1)).toEqual([FLOW, null, 1000, iso(mark - LOOK_BACK_MS)]);
		expect(stateOf(staticData)).toEqual({
			flowId: FLOW,
			highWaterMark: iso(mark + 2000),
			windowStart: iso(mark),
			handled: { req_a: mark + 1000, req_b: mark + 2000, req_c: mark + 2000 },
		});

		// Between polls 2 and 3: one more exactly at the boundary, two later.
		add('req_boundary', mark + 2000);
		add('req_d', mark + 3000, 'error');
		add('req_e', mark + 4000);
		const third = await poll(staticData);
		expect(exportParams().at(-1)).toEqual([FLOW, null, 1000, iso(mark + 2000 - LOOK_BACK_MS)]);
		expect(emittedIds(third.output)).toEqual(['req_boundary', 'req_d', 'req_e']);
		expect(stateOf(staticData)).toMatchObject({
			highWaterMark: iso(mark + 4000),
			handled: expect.objectContaining({ req_boundary: mark + 2000, req_e: mark + 4000 }),
		});

		// Nothing new: null, and the state stays where it was.
		const before4 = JSON.stringify(stateOf(staticData));
		const fourth = await poll(staticData);
		expect(fourth.output).toBeNull();
		expect(JSON.stringify(stateOf(staticData))).toBe(before4);
	});

	it('leaves its static data untouched on a poll that finds nothing new, so that n8n saves nothing', async () => {
		const staticData: IDataObject = {};
		const mark = await activate(staticData);
		add('req_a', mark + 1000);
		add('req_b', mark + 1000);
		// n8n saves the static data after a poll when `__dataChanged` is set (any write or delete).
		const changedBy = async () =>
			((await poll(staticData)).staticData as { __dataChanged?: boolean }).__dataChanged;
		expect(await changedBy()).toBe(true);
		const saved = JSON.stringify(staticData);
		// The export returns req_a and req_b again (it starts at the mark, inclusive): not new.
		expect(await changedBy()).toBe(false);
		expect(await changedBy()).toBe(false);
		expect(JSON.stringify(staticData)).toBe(saved);
		expect(exportParams()).toHaveLength(3);
		add('req_c', mark + 2000);
		expect(await changedBy()).toBe(true);
		expect(stateOf(staticData).handled).toEqual({
			req_a: mark + 1000,
			req_b: mark + 1000,
			req_c: mark + 2000,
		});
	});

	it('fires once per request however often BotDojo modifies its record later, across restarts', async () => {
		let staticData: IDataObject = {};
		const mark = await activate(staticData);
		const a = add('req_a', mark + 1000);
		const b = add('req_b', mark + 2000, 'error');
		expect(emittedIds((await poll(staticData)).output)).toEqual(['req_a', 'req_b']);

		for (let change = 1; change <= 5; change++) {
			modify(a, mark + 10_000 * change);
			modify(b, mark + 10_000 * change + 1);
			// n8n restarts between polls: the state comes back from the database as JSON.
			staticData = JSON.parse(JSON.stringify(staticData)) as IDataObject;
			expect((await poll(staticData)).output).toBeNull();
			expect(stateOf(staticData).highWaterMark).toBe(iso(mark + 10_000 * change + 1));
		}
		// Each poll asked only from its high-water mark, less the look-back.
		expect(exportParams().at(-1)).toEqual([FLOW, null, 1000, iso(mark + 40_001 - LOOK_BACK_MS)]);

		// A new request among the modified ones still fires, alone.
		modify(a, mark + 70_000);
		add('req_c', mark + 70_000);
		expect(emittedIds((await poll(staticData)).output)).toEqual(['req_c']);
	});

	it('many requests sharing one millisecond: each fires once, over polls cut short by the budget', async () => {
		const staticData: IDataObject = {};
		const mark = await activate(staticData);
		const pile = env.emu.seedFlowRequests(FLOW, 2500, { start: mark + 5000, stepMs: 0 });
		const ids = pile.map((r: { id: string }) => r.id);
		const fired: unknown[] = [];
		for (const size of [1000, 1000, 500]) {
			const { output } = await pollOnePage(staticData);
			expect(output?.[0]).toHaveLength(size);
			fired.push(...emittedIds(output));
		}
		// Within one millisecond BotDojo orders by id.
		expect(fired).toEqual([...ids].sort());
		// The second poll asked after the first poll's page, the third after the second's.
		const cursors = exportParams().map((params) => params[1] ?? null);
		expect(cursors).toEqual([null, cursors[1], cursors[1], cursors[3], cursors[3]]);
		expect(new Set(cursors).size).toBe(3);
		expect(stateOf(staticData).resume).toBeUndefined();
		expect(await poll(staticData)).toMatchObject({ output: null });

		// All of them modified later, in one millisecond again: nothing fires.
		for (const record of pile) modify(record, mark + 9000);
		for (let i = 0; i < 3; i++) {
			expect(await pollOnePage(staticData)).toMatchObject({ output: null });
		}
		expect(await poll(staticData)).toMatchObject({ output: null });
	});

	it('keeps memory bounded: at most 10,000 ids and 7 days, and never fires for what it forgot', async () => {
		// Activated 9 days ago, so that a change 8 days after a request ended is not in the future.
		const mark = Date.now() - 9 * 24 * 3_600_000;
		const staticData: IDataObject = {
			[STATE_KEY]: { flowId: FLOW, highWaterMark: iso(mark), windowStart: iso(mark), handled: {} },
		};
		const backlog = env.emu.seedFlowRequests(FLOW, 10_500, { start: mark + 1, stepMs: 1 });
		expect((await poll(staticData)).output?.[0]).toHaveLength(10_500);
		const state = stateOf(staticData);
		expect(Object.keys(state.handled as IDataObject)).toHaveLength(10_000);
		// The window now starts after the oldest 500, which are forgotten but still never fire.
		expect(state.windowStart).toBe(iso(mark + 501));
		modify(backlog[0], mark + 20_000);
		modify(backlog[10_499], mark + 20_001);
		expect(await poll(staticData)).toMatchObject({ output: null });

		// A record changed 8 days after it ended lies before the 7-day window: it does not fire.
		const late = add('req_late', mark + 30_000);
		expect(emittedIds((await poll(staticData)).output)).toEqual(['req_late']);
		modify(late, mark + 30_000 + 8 * 24 * 3_600_000);
		expect(await poll(staticData)).toMatchObject({ output: null });
		expect(stateOf(staticData).windowStart).toBe(iso(mark + 30_000 + 24 * 3_600_000));
		expect(stateOf(staticData).handled).toEqual({});
	});
});
