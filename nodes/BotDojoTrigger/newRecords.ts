/**
 * Which flow requests are new since the last poll. The workflow's static data keeps a
 * high-water mark (the latest `modified` seen) and the ids seen at exactly that moment: the next
 * export starts at the mark, inclusive, and drops those ids, so a request modified exactly at
 * the boundary is neither lost nor emitted twice.
 */
import type { IDataObject, IPollFunctions } from 'n8n-workflow';

import { toUtcIso } from '../shared/dates';
import { exportPages, MAX_PAGE_SIZE } from '../shared/exportPages';

export type StatusFilter = 'both' | 'complete' | 'error';

/** What the trigger remembers between polls, in `getWorkflowStaticData('node')`. */
interface PollState extends IDataObject {
	flowId?: string;
	/** ISO 8601 UTC: the latest `modified` of a request already seen. */
	highWaterMark?: string;
	/** Ids of the requests seen whose `modified` is exactly the high-water mark. */
	idsAtHighWaterMark?: string[];
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** Windows searched, most recent first, for the latest request of a manual run. */
const MANUAL_WINDOWS_MS = [DAY_MS, 30 * DAY_MS, 365 * DAY_MS, undefined];

export function statusMatches(record: IDataObject, statuses: StatusFilter): boolean {
	return statuses === 'both' || record.status === statuses;
}

/**
 * The requests that finished since the previous poll, oldest first; updates the state. The
 * first poll (or a poll after the flow was changed) only records "now": history does not flood in.
 */
export async function pollNewRecords(
	this: IPollFunctions,
	flowId: string,
	statuses: StatusFilter,
): Promise<IDataObject[]> {
	const state = this.getWorkflowStaticData('node') as PollState;
	const markMs =
		typeof state.highWaterMark === 'string' ? Date.parse(state.highWaterMark) : Number.NaN;
	if (state.flowId !== flowId || Number.isNaN(markMs)) {
		state.flowId = flowId;
		state.highWaterMark = toUtcIso(Date.now());
		state.idsAtHighWaterMark = [];
		return [];
	}

	const seenAtMark = new Set(state.idsAtHighWaterMark ?? []);
	let newMarkMs = markMs;
	let idsAtNewMark = new Set(seenAtMark);
	const fresh: IDataObject[] = [];
	// A large backlog is drained over several polls, page by page, within n8n's poll budget.
	const startedAt = Date.now();
	const budgetMs = typeof this.getPollBudgetMs === 'function' ? this.getPollBudgetMs() / 2 : 60_000;

	const pages = exportPages.call(this, {
		flowId,
		pageSize: MAX_PAGE_SIZE,
		fromDate: state.highWaterMark,
	});
	for await (const page of pages) {
		for (const record of page.records) {
			const id = String(record.id);
			const parsed = Date.parse(String(record.modified));
			// A request without a readable `modified` is placed at the mark and deduplicated by id.
			const modifiedMs = Number.isNaN(parsed) ? markMs : parsed;
			if (modifiedMs < markMs || (modifiedMs === markMs && seenAtMark.has(id))) continue;
			if (modifiedMs > newMarkMs) {
				newMarkMs = modifiedMs;
				idsAtNewMark = new Set();
			}
			if (modifiedMs === newMarkMs) idsAtNewMark.add(id);
			if (statusMatches(record, statuses)) fresh.push(record);
		}
		if (Date.now() - startedAt > budgetMs) break;
	}

	state.highWaterMark = toUtcIso(newMarkMs);
	state.idsAtHighWaterMark = [...idsAtNewMark];
	return fresh;
}

/** The most recent finished request of the flow (for a manual run), without touching the state. */
export async function latestRecord(
	this: IPollFunctions,
	flowId: string,
	statuses: StatusFilter,
): Promise<IDataObject | undefined> {
	const now = Date.now();
	for (const windowMs of MANUAL_WINDOWS_MS) {
		let latest: IDataObject | undefined;
		const fromDate = windowMs === undefined ? undefined : toUtcIso(now - windowMs);
		for await (const page of exportPages.call(this, {
			flowId,
			pageSize: MAX_PAGE_SIZE,
			fromDate,
		})) {
			for (const record of page.records) if (statusMatches(record, statuses)) latest = record;
		}
		if (latest) return latest;
	}
	return undefined;
}
