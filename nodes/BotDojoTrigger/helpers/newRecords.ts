/**
 * Which flow requests are new since the last poll. Each export starts at a high-water mark (the
 * latest `modified` seen, inclusive); what decides whether a request starts the workflow is its
 * id: a request already handled, or one that ended before the trigger's window, never starts
 * it again, however often BotDojo modifies its record later (see handledWindow.ts).
 */
import type { IDataObject, IPollFunctions } from 'n8n-workflow';

import { toUtcIso } from '../../shared/params/dates';
import { exportPages, MAX_PAGE_SIZE } from '../../shared/transport/exportPages';
import { HandledWindow, endedAtMs, type HandledIds } from './handledWindow';

export type StatusFilter = 'both' | 'complete' | 'error';

/** What the trigger remembers between polls, in `getWorkflowStaticData('node')`. */
interface PollState extends IDataObject {
	flowId?: string;
	/** ISO 8601 UTC: the latest `modified` of a request already seen; the next export starts here. */
	highWaterMark?: string;
	/** ISO 8601 UTC: requests that ended before this are never delivered. */
	windowStart?: string;
	/** Handled request ids (delivered or passed over) → when each ended (ms); see handledWindow.ts. */
	handled?: HandledIds;
	/** Where an export cut short by the poll budget goes on: its From Date and the next cursor. */
	resume?: { fromDate: string; cursor: string };
	/** Written by version 1.0 of the trigger: the ids seen at exactly the high-water mark. */
	idsAtHighWaterMark?: string[];
}

/**
 * Longest a poll keeps paging. n8n polls at most once a minute and does not wait for a running
 * poll before starting the next (without its durable scheduler), so a poll must end well before.
 */
const MAX_POLL_MS = 30_000;

const DAY_MS = 24 * 60 * 60 * 1000;

/** Windows searched, most recent first, for the latest request of a manual run. */
const MANUAL_WINDOWS_MS = [DAY_MS, 30 * DAY_MS, 365 * DAY_MS, undefined];

export function statusMatches(record: IDataObject, statuses: StatusFilter): boolean {
	return statuses === 'both' || record.status === statuses;
}

/**
 * The requests that finished since the previous poll and never started the workflow, oldest
 * first; updates the state. The first poll (or a poll after the flow was changed) only records
 * "now": history does not flood in.
 */
export async function pollNewRecords(
	ctx: IPollFunctions,
	flowId: string,
	statuses: StatusFilter,
): Promise<IDataObject[]> {
	const state = ctx.getWorkflowStaticData('node') as PollState;
	const markMs =
		typeof state.highWaterMark === 'string' ? Date.parse(state.highWaterMark) : Number.NaN;
	if (state.flowId !== flowId || Number.isNaN(markMs)) {
		const now = toUtcIso(Date.now());
		Object.assign(state, { flowId, highWaterMark: now, windowStart: now, handled: {} });
		delete state.resume;
		delete state.idsAtHighWaterMark;
		return [];
	}

	const window = readWindow(state, markMs);
	let newMarkMs = markMs;
	const fresh: IDataObject[] = [];
	// A large backlog is drained over several polls, page by page, within the poll budget.
	const startedAt = Date.now();
	const budgetMs = Math.min(
		typeof ctx.getPollBudgetMs === 'function' ? ctx.getPollBudgetMs() / 2 : MAX_POLL_MS,
		MAX_POLL_MS,
	);
	const resume = state.resume;
	// Taken before the export: if it fails (say, BotDojo no longer accepts the cursor), the
	// next poll starts over at the mark instead of failing on the same cursor again.
	if (resume !== undefined) delete state.resume;
	const fromDate = resume?.fromDate ?? toUtcIso(markMs);
	let next: PollState['resume'];

	const pages = exportPages(ctx, {
		flowId,
		pageSize: MAX_PAGE_SIZE,
		fromDate,
		startCursor: resume?.cursor,
	});
	for await (const page of pages) {
		for (const record of page.records) {
			const id = String(record.id);
			const modifiedMs = Date.parse(String(record.modified));
			if (modifiedMs > newMarkMs) newMarkMs = modifiedMs;
			const endedMs = endedAtMs(record);
			if (!window.isNew(id, endedMs)) continue;
			// Passed over by the status filter counts as handled too: switching it replays nothing.
			window.handled(id, endedMs);
			if (statusMatches(record, statuses)) fresh.push(record);
		}
		if (page.hasMore && Date.now() - startedAt >= budgetMs) {
			next = page.nextCursor ? { fromDate, cursor: page.nextCursor } : undefined;
			break;
		}
	}

	window.prune(newMarkMs);
	// n8n saves the static data (up to 10,000 ids) after a poll that wrote or deleted anything in
	// it, even the same value: an idle poll must leave it untouched.
	writeChanged(state, 'highWaterMark', toUtcIso(newMarkMs));
	writeChanged(state, 'windowStart', toUtcIso(window.startMs));
	if (window.changed || state.handled === undefined) state.handled = window.toSaved();
	if (next) state.resume = next;
	if (state.idsAtHighWaterMark !== undefined) delete state.idsAtHighWaterMark;
	return fresh;
}

function writeChanged(state: PollState, name: 'highWaterMark' | 'windowStart', value: string) {
	if (state[name] !== value) state[name] = value;
}

/** The handled window; a state saved by version 1.0 had handled everything up to its mark. */
function readWindow(state: PollState, markMs: number): HandledWindow {
	const startMs =
		typeof state.windowStart === 'string' ? Date.parse(state.windowStart) : Number.NaN;
	if (!Number.isNaN(startMs)) return new HandledWindow(startMs, state.handled ?? {});
	const window = new HandledWindow(markMs);
	for (const id of state.idsAtHighWaterMark ?? []) window.handled(id, markMs);
	return window;
}

/** The most recent finished request of the flow (for a manual run), without touching the state. */
export async function latestRecord(
	ctx: IPollFunctions,
	flowId: string,
	statuses: StatusFilter,
): Promise<IDataObject | undefined> {
	const now = Date.now();
	for (const windowMs of MANUAL_WINDOWS_MS) {
		let latest: IDataObject | undefined;
		const fromDate = windowMs === undefined ? undefined : toUtcIso(now - windowMs);
		for await (const page of exportPages(ctx, {
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
