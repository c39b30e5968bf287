/**
 * The BotDojo Trigger's tests share these: one emulator per test file (jest loads this module once
 * per file) and one trigger over one flow, polled through n8n's engine.
 */
import type { IDataObject } from 'n8n-workflow';

import { runPoll } from '../helpers/engine';
import { useEmulator } from '../helpers/emulator';

export { emittedIds } from '../helpers/engine';

export const env = useEmulator();

export const FLOW = 'flow_watch';
export const STATE_KEY = 'node:BotDojo Trigger';

export function trigger(parameters: IDataObject = {}, credentialId?: string) {
	return {
		type: 'botDojoTrigger',
		parameters: { flowId: FLOW, statuses: 'both', ...parameters } as never,
		...(credentialId ? { credentialId } : {}),
	};
}

export function poll(
	staticData: IDataObject,
	parameters: IDataObject = {},
	mode?: 'trigger' | 'manual',
	pollBudgetMs?: number,
) {
	return runPoll({
		node: trigger(parameters),
		credentials: env.credentials,
		staticData,
		mode,
		pollBudgetMs,
	});
}

export function stateOf(staticData: IDataObject): IDataObject {
	return staticData[STATE_KEY] as IDataObject;
}

export function iso(ms: number): string {
	return new Date(ms).toISOString();
}

export function add(id: string, modifiedMs: number, status = 'complete', flowId = FLOW) {
	return env.emu.addRecord({ id, flow_id: flowId, modified: iso(modifiedMs), status });
}

/** BotDojo changes a finished record later (an evaluation, a tag): `modified` moves, `endTime` not. */
export function modify(record: IDataObject, modifiedMs: number) {
	return env.emu.touchRequest(String(record.id), {
		modified: iso(modifiedMs),
		eval_job_id: `eval_${modifiedMs}`,
	});
}

export function exportParams(): unknown[][] {
	return env.emu.requestsTo('export').map((r: { body: { params: unknown[] } }) => r.body.params);
}

/** Activates the trigger over a flow with history; returns the high-water mark it started at. */
export async function activate(staticData: IDataObject): Promise<number> {
	env.emu.seedFlowRequests(FLOW, 30, { start: Date.now() - 3_600_000, stepMs: 1000 });
	const first = await poll(staticData);
	expect(first.output).toBeNull();
	expect(exportParams()).toEqual([]);
	return Date.parse(stateOf(staticData).highWaterMark as string);
}
