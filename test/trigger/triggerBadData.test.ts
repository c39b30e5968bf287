/**
 * BotDojo Trigger with bad data: a request dated in the future, ids of every shape, and a
 * request that shows up late. None of them silences the trigger or fires twice.
 */
import type { IDataObject } from 'n8n-workflow';

import { LOOK_BACK_MS, MAX_CLOCK_SKEW_MS } from '../../nodes/BotDojoTrigger/helpers/newRecords';
import { useScriptedServer } from '../transport/scriptedServer';
import { answerPages, pollScripted, recordText } from './scriptedExport';
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
	activate,
} from './triggerHarness';
import { captureNodeLogs } from './triggerLogs';

const logs = captureNodeLogs();
const botdojo = useScriptedServer();
const FUTURE = Date.parse('2099-01-01T00:00:00.000Z');

/** A record the export returns without an `id` (the emulator still indexes it by `indexId`). */
function addWithoutId(indexId: string, modifiedMs: number, text: string): IDataObject {
	const record = add(indexId, modifiedMs) as IDataObject;
	record.body = { text_input: text };
	delete record.id;
	return record;
}

/** A state saved `agoMs` ago, with nothing handled since. */
function savedAgo(agoMs: number): IDataObject {
	const mark = iso(Date.now() - agoMs);
	return { [STATE_KEY]: { flowId: FLOW, highWaterMark: mark, windowStart: mark, handled: {} } };
}

describe('BotDojo Trigger: bad data never silences it', () => {
	beforeEach(() => {
		logs.length = 0;
	});

	it('a request dated in the future fires once, says so in the log, and later requests still fire', async () => {
		const staticData: IDataObject = {};
		const mark = await activate(staticData);
		add('req_future', FUTURE);
		add('req_a', mark + 1000);
		const first = await poll(staticData);
		expect(emittedIds(first.output)).toEqual(['req_a', 'req_future']);
		const markAfter = Date.parse(stateOf(staticData).highWaterMark as string);
		expect(markAfter).toBeLessThanOrEqual(Date.now() + MAX_CLOCK_SKEW_MS);
		expect(markAfter).toBeGreaterThanOrEqual(mark + 1000);
		expect(logs).toEqual([
			expect.stringMatching(
				/^warn BotDojo Trigger: flow request "req_future" is dated 2099-01-01T00:00:00.000Z, more than 5 minutes ahead of this n8n's clock\. It started the workflow once and will not fire again; the high-water mark stops at \S+Z, so later requests still fire\.$/,
			),
		]);

		// Three requests finish over the next two polls: each fires, the future one never again.
		add('req_b', mark + 2000);
		add('req_c', mark + 2500, 'error');
		expect(emittedIds((await poll(staticData)).output)).toEqual(['req_b', 'req_c']);
		add('req_d', mark + 3000);
		expect(emittedIds((await poll(staticData)).output)).toEqual(['req_d']);
		expect(await poll(staticData)).toMatchObject({ output: null });
		expect(logs).toHaveLength(1);
	});

	it('a state that trigger 1.1 left in the future (mark 2099) starts firing again from now', async () => {
		const staticData: IDataObject = {
			[STATE_KEY]: {
				flowId: FLOW,
				highWaterMark: iso(FUTURE),
				windowStart: iso(FUTURE - 7 * 24 * 3_600_000),
				handled: { req_future: FUTURE },
			},
		};
		add('req_future', FUTURE);
		add('req_new', Date.now() + 1000);
		expect(emittedIds((await poll(staticData)).output)).toEqual(['req_new']);
		expect(Date.parse(stateOf(staticData).highWaterMark as string)).toBeLessThanOrEqual(
			Date.now() + MAX_CLOCK_SKEW_MS,
		);
		expect(logs).toEqual([
			expect.stringMatching(/^warn .*high-water mark 2099-01-01\S* lay in the future/),
		]);
		expect(await poll(staticData)).toMatchObject({ output: null });
	});

	it('ids keep their type: 1 and "1" are two requests', async () => {
		const staticData: IDataObject = {};
		const mark = await activate(staticData);
		env.emu.addRecord({
			id: 1 as unknown as string,
			flow_id: FLOW,
			modified: iso(mark + 1000),
			status: 'complete',
		});
		add('1', mark + 2000);
		expect(emittedIds((await poll(staticData)).output)).toEqual([1, '1']);
		expect(await poll(staticData)).toMatchObject({ output: null });
		expect(Object.keys(stateOf(staticData).handled as IDataObject).sort()).toEqual([
			'1',
			'~number:1',
		]);
	});

	it('requests without an id each fire once, keyed by a digest of their stable fields', async () => {
		const staticData: IDataObject = {};
		const mark = await activate(staticData);
		const records = ['one', 'two', 'three'].map((text, i) =>
			addWithoutId(`idx_${i}`, mark + 1000 + i, text),
		);
		const first = await poll(staticData);
		expect(first.output?.[0].map((item) => item.json.body)).toEqual([
			{ text_input: 'one' },
			{ text_input: 'two' },
			{ text_input: 'three' },
		]);
		expect(emittedIds(first.output)).toEqual([undefined, undefined, undefined]);
		expect(Object.keys(stateOf(staticData).handled as IDataObject)).toEqual([
			expect.stringMatching(/^~r:[\w-]{43}$/),
			expect.stringMatching(/^~r:[\w-]{43}$/),
			expect.stringMatching(/^~r:[\w-]{43}$/),
		]);
		// BotDojo modifies one later (an evaluation): `modified` moves, it does not fire again.
		records[1].id = 'idx_1';
		modify(records[1], mark + 5000);
		delete records[1].id;
		expect(await poll(staticData)).toMatchObject({ output: null });
	});

	it('200 ids of 100 KB each: each fires once, and the saved state stays under 20 KB', async () => {
		const staticData: IDataObject = {};
		const mark = await activate(staticData);
		const long = 'x'.repeat(100_000);
		for (let i = 0; i < 200; i++) add(`${long}${String(i).padStart(3, '0')}`, mark + 1000 + i);
		const first = await poll(staticData);
		expect(first.output?.[0]).toHaveLength(200);
		expect(new Set(emittedIds(first.output)).size).toBe(200);
		const saved = JSON.stringify(staticData);
		expect(saved.length).toBeLessThan(20_000);
		expect(await poll(staticData)).toMatchObject({ output: null });
	});

	it('a state saved with 100 KB ids whole keeps them, as digests: a later change fires nothing', async () => {
		const mark = Date.now() - 60_000;
		const ids = [0, 1, 2].map((i) => `${'y'.repeat(100_000)}${i}`);
		const records = ids.map((id, i) => add(id, mark - 1000 + i));
		const staticData: IDataObject = {
			[STATE_KEY]: {
				flowId: FLOW,
				highWaterMark: iso(mark),
				windowStart: iso(mark - 5000),
				handled: Object.fromEntries(ids.map((id, i) => [id, mark - 1000 + i])),
			},
		};
		records.forEach((record, i) => modify(record, mark + 1000 + i));
		add('req_new', mark + 2000);
		expect(emittedIds((await poll(staticData)).output)).toEqual(['req_new']);
		expect(JSON.stringify(staticData).length).toBeLessThan(1_000);
		expect(await poll(staticData)).toMatchObject({ output: null });
	});

	it('an id quoting the API key is saved as a digest, and a state that saved one whole is re-keyed: each fires once', async () => {
		const key = env.emu.keys.project;
		const staticData: IDataObject = {};
		const mark = await activate(staticData);
		add(`req_${key}`, mark + 1000);
		add(`~${key}`, mark + 1001);
		const first = await poll(staticData);
		expect(first.output?.[0]).toHaveLength(2);
		expect(JSON.stringify(staticData)).not.toContain(key);
		expect(Object.keys(stateOf(staticData).handled as IDataObject)).toEqual([
			expect.stringMatching(/^~h:[\w-]{43}$/),
			expect.stringMatching(/^~h:[\w-]{43}$/),
		]);
		expect(await poll(staticData)).toMatchObject({ output: null });

		// Saved whole by package 0.1 (raw, and typed), and changed by BotDojo since: not again.
		const old = [add(`old_${key}`, mark + 2000), add(`~old_${key}`, mark + 2001)];
		const state = stateOf(staticData);
		state.handled = {
			...(state.handled as IDataObject),
			[`old_${key}`]: mark + 2000,
			[`~string:~old_${key}`]: mark + 2001,
		};
		// A range of forgotten future-dated requests ending at such a key (before these records).
		state.futureRange = [mark + 100, mark + 200, `~string:~old_${key}`];
		old.forEach((record, i) => modify(record, mark + 3000 + i));
		add('req_new', mark + 4000);
		expect(emittedIds((await poll(staticData)).output)).toEqual(['req_new']);
		expect(JSON.stringify(staticData)).not.toContain(key);
		expect(await poll(staticData)).toMatchObject({ output: null });
	});

	it(`a request that shows up late fires when dated up to ${LOOK_BACK_MS / 60_000} minutes before the mark, and is missed beyond`, async () => {
		const staticData = savedAgo(30 * 60_000);
		const now = Date.now();
		add('req_a', now - 5 * 60_000);
		expect(emittedIds((await poll(staticData)).output)).toEqual(['req_a']);
		expect(stateOf(staticData).highWaterMark).toBe(iso(now - 5 * 60_000));
		// Both appear now, dated before the mark (after the trigger was published).
		add('req_late_5_min', now - 10 * 60_000);
		add('req_late_15_min', now - 20 * 60_000);
		expect(emittedIds((await poll(staticData)).output)).toEqual(['req_late_5_min']);
		expect(await poll(staticData)).toMatchObject({ output: null });
	});

	it('a request without an id whose body nests 20,000 deep fires once, and later requests still fire', async () => {
		const staticData: IDataObject = {};
		botdojo.answer = answerPages({});
		expect((await pollScripted(botdojo, staticData)).output).toBeNull();
		const now = Date.now();
		const deepBody = `${'{"a":'.repeat(20_000)}{}${'}'.repeat(20_000)}`;
		const records = [
			recordText('req_1', now),
			recordText(undefined, now + 1, `,"body":${deepBody}`),
			recordText('req_3', now + 2),
		];
		botdojo.answer = answerPages({ '': { records } });
		const first = await pollScripted(botdojo, staticData);
		expect(emittedIds(first.output)).toEqual(['req_1', undefined, 'req_3']);
		expect(first.output?.[0][1].json.body).toHaveProperty('a.a.a');
		// BotDojo returns them again (the look-back), with one more.
		records.push(recordText('req_4', now + 3));
		expect(emittedIds((await pollScripted(botdojo, staticData)).output)).toEqual(['req_4']);
		expect((await pollScripted(botdojo, staticData)).output).toBeNull();
	});

	it('10,001 requests dated in the future and requests of now: each fires exactly once over several polls, across restarts', async () => {
		const staticData: IDataObject = {};
		const mark = await activate(staticData);
		const future = env.emu.seedFlowRequests(FLOW, 10_001, { start: FUTURE, stepMs: 1000 });
		const expected = future.map((record: IDataObject) => record.id);
		const emitted: unknown[] = [];
		// n8n saves the state when a poll emits; each poll here reads it back as after a restart.
		let saved = JSON.stringify(staticData);
		for (let round = 1; round <= 4; round++) {
			expected.push(add(`req_now_${round}`, mark + round * 1000).id);
			const state = JSON.parse(saved) as IDataObject;
			const { output } = await poll(state);
			emitted.push(...emittedIds(output));
			if (output !== null) saved = JSON.stringify(state);
		}
		expect(emitted).toHaveLength(new Set(emitted).size);
		expect(new Set(emitted)).toEqual(new Set(expected));
		expect(logs).toContainEqual(
			"warn BotDojo Trigger: more than 1,000 requests are dated in the future; 9,001 more of them are now remembered only as a range of dates, 2099-01-01T00:00:00.000Z to 2099-01-01T02:30:00.000Z. They will not fire again, nor will a request dated within that range that reaches BotDojo's export later.",
		);
		// The state keeps its bound: 10,000 ids at most.
		const handled = stateOf(JSON.parse(saved) as IDataObject).handled as IDataObject;
		expect(Object.keys(handled).length).toBeLessThanOrEqual(10_000);
	});
});
