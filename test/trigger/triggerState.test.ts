/** BotDojo Trigger: its saved state, status filter, flow change, manual runs and failures. */
import type { IDataObject } from 'n8n-workflow';

import { runPoll } from '../helpers/engine';
import {
	env,
	FLOW,
	STATE_KEY,
	trigger,
	poll,
	stateOf,
	iso,
	add,
	modify,
	emittedIds,
	exportParams,
	activate,
} from './triggerHarness';

describe('BotDojo Trigger: state, filters and failures', () => {
	it('takes over the state of trigger 1.0 without firing again', async () => {
		const mark = Date.now() - 60_000;
		const old = add('req_old', mark - 5000);
		const atMark = add('req_at_mark', mark);
		const staticData: IDataObject = {
			[STATE_KEY]: { flowId: FLOW, highWaterMark: iso(mark), idsAtHighWaterMark: ['req_at_mark'] },
		};
		modify(old, mark + 1000);
		modify(atMark, mark + 2000);
		add('req_new', mark + 3000);
		expect(emittedIds((await poll(staticData)).output)).toEqual(['req_new']);
		expect(stateOf(staticData)).toEqual({
			flowId: FLOW,
			highWaterMark: iso(mark + 3000),
			windowStart: iso(mark),
			handled: { req_at_mark: mark, req_new: mark + 3000 },
		});
	});

	it('emits only the chosen status, yet moves past the others', async () => {
		const staticData: IDataObject = {};
		const mark = await activate(staticData);
		add('req_ok_1', mark + 1000);
		add('req_fail_1', mark + 2000, 'error');
		add('req_ok_2', mark + 3000);
		const errors = await poll(staticData, { statuses: 'error' });
		expect(emittedIds(errors.output)).toEqual(['req_fail_1']);
		expect(stateOf(staticData).highWaterMark).toBe(iso(mark + 3000));

		add('req_ok_3', mark + 4000);
		expect(await poll(staticData, { statuses: 'error' })).toMatchObject({ output: null });
		expect(stateOf(staticData).highWaterMark).toBe(iso(mark + 4000));
		// Switching the filter does not replay what was passed over.
		add('req_ok_4', mark + 5000);
		const completes = await poll(staticData, { statuses: 'complete' });
		expect(emittedIds(completes.output)).toEqual(['req_ok_4']);
	});

	it('drains a backlog larger than a page, in order, once', async () => {
		const staticData: IDataObject = {};
		const mark = await activate(staticData);
		const backlog = env.emu.seedFlowRequests(FLOW, 2500, { start: mark + 1, stepMs: 10 });
		const drained = await poll(staticData);
		expect(emittedIds(drained.output)).toEqual(backlog.map((r: { id: string }) => r.id));
		expect(
			exportParams()
				.slice(1)
				.map((params) => params[1]),
		).toEqual([expect.any(String), expect.any(String)]);
		expect(await poll(staticData)).toMatchObject({ output: null });
	});

	it('starts again from now when the flow is changed', async () => {
		const staticData: IDataObject = {};
		const mark = await activate(staticData);
		add('req_new', mark + 1000);
		add('req_elsewhere_history', Date.now() - 1000, 'complete', 'flow_elsewhere');
		const switched = await poll(staticData, { flowId: 'flow_elsewhere' });
		expect(switched.output).toBeNull();
		expect(stateOf(staticData).flowId).toBe('flow_elsewhere');
		add('req_elsewhere_2', Date.now() + 1000, 'complete', 'flow_elsewhere');
		const next = await poll(staticData, { flowId: 'flow_elsewhere' });
		expect(emittedIds(next.output)).toEqual(['req_elsewhere_2']);
	});

	it('a manual run returns the latest request and leaves the state alone', async () => {
		const now = Date.now();
		add('req_old', now - 90 * 24 * 3_600_000);
		add('req_latest', now - 40 * 24 * 3_600_000);
		add('req_old_error', now - 60 * 24 * 3_600_000, 'error');
		const staticData: IDataObject = {};
		const latest = await poll(staticData, {}, 'manual');
		expect(emittedIds(latest.output)).toEqual(['req_latest']);
		expect(latest.output?.[0][0].json).toMatchObject({ flow_id: FLOW, status: 'complete' });
		const latestError = await poll(staticData, { statuses: 'error' }, 'manual');
		expect(emittedIds(latestError.output)).toEqual(['req_old_error']);
		expect(staticData[STATE_KEY] ?? {}).toEqual({});
		expect(await poll(staticData, { flowId: 'flow_empty' }, 'manual')).toMatchObject({
			output: null,
		});
	});

	it('fails the poll without moving the mark when the export makes no progress', async () => {
		const staticData: IDataObject = {};
		const mark = await activate(staticData);
		add('req_a', mark + 1000);
		env.emu.injectFault('empty-page', { endpoint: 'export', times: 1 });
		await expect(poll(staticData)).rejects.toThrow(/stopped making progress on page 1/);
		expect(stateOf(staticData).highWaterMark).toBe(iso(mark));
		expect(emittedIds((await poll(staticData)).output)).toEqual(['req_a']);
	});

	it('maps a wrong API key to the 401 message', async () => {
		const staticData: IDataObject = {};
		await activate(staticData);
		await expect(
			runPoll({ node: trigger({}, 'wrong'), credentials: env.credentials, staticData }),
		).rejects.toThrow('BotDojo rejected the API key (401)');
	});
});
