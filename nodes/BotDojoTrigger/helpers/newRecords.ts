/**
 * Which flow requests are new since the last poll. Each export starts LOOK_BACK_MS before a
 * high-water mark (the latest `modified` seen, but never later than now + MAX_CLOCK_SKEW_MS);
 * what decides whether a request starts the workflow is its key (recordKey.ts): a request
 * already handled, or one that ended before the trigger's window, never starts it again,
 * however often BotDojo modifies its record later (see handledWindow.ts).
 *
 * n8n hands each poll its own copy of the static data and saves it after the poll returns (the
 * last poll to finish wins): a poll ends within MAX_POLL_MS, well before the next one starts.
 */
import type { IDataObject, IPollFunctions } from 'n8n-workflow';

import { toUtcIso } from '../../shared/params/dates';
import { exportPages, MAX_PAGE_SIZE } from '../../shared/transport/api';
import { withoutKey } from '../../shared/transport/redaction';
import { HandledWindow, endedAtMs, type HandledIds } from './handledWindow';
import { idForLog, MAX_KEY_LENGTH, recordKey } from './recordKey';

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
const MINUTE_MS = 60 * 1000;

/**
 * How far BotDojo's clock may run ahead of n8n's. A request dated later than now + this is
 * "future-dated": it starts the workflow once (its key is remembered), a warning says so in
 * n8n's log, and the high-water mark stops at now + this, so later requests still fire.
 */
export const MAX_CLOCK_SKEW_MS = 5 * MINUTE_MS;

/**
 * How long before the mark each export starts: a request that shows up in the export late,
 * dated up to this long before the mark, still fires (once: its key decides). One that shows
 * up later than that is missed (README, docs/nodes.md).
 */
export const LOOK_BACK_MS = 10 * MINUTE_MS;

/** Longest export cursor kept between polls; a longer one is not saved (the next poll re-reads). */
const MAX_SAVED_CURSOR = 4096;

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
	const nowMs = Date.now();
	const latestMarkMs = nowMs + MAX_CLOCK_SKEW_MS;
	const markMs =
		typeof state.highWaterMark === 'string' ? Date.parse(state.highWaterMark) : Number.NaN;
	if (state.flowId !== flowId || Number.isNaN(markMs)) {
		const now = toUtcIso(nowMs);
		Object.assign(state, { flowId, highWaterMark: now, windowStart: now, handled: {} });
		delete state.resume;
		delete state.idsAtHighWaterMark;
		return [];
	}

	const window = readWindow(state, markMs);
	let newMarkMs = markMs;
	if (markMs > latestMarkMs) {
		// Saved by trigger 1.1 after a future-dated request: start again from now.
		ctx.logger.warn(
			`BotDojo Trigger: the saved high-water mark ${state.highWaterMark} lay in the future; requests from now on start the workflow again.`,
		);
		newMarkMs = nowMs;
		window.startMs = Math.min(window.startMs, nowMs);
		delete state.resume;
	}
	const fresh: IDataObject[] = [];
	// A large backlog is drained over several polls, page by page, within the poll budget.
	const budgetMs = Math.min(
		typeof ctx.getPollBudgetMs === 'function' ? ctx.getPollBudgetMs() / 2 : MAX_POLL_MS,
		MAX_POLL_MS,
	);
	const resume = state.resume;
	// Taken before the export: if it fails (say, BotDojo no longer accepts the cursor), the
	// next poll starts over at the mark instead of failing on the same cursor again.
	if (resume !== undefined) delete state.resume;
	const fromDate = resume?.fromDate ?? toUtcIso(newMarkMs - LOOK_BACK_MS);
	let next: PollState['resume'];

	const pages = exportPages(ctx, {
		flowId,
		pageSize: MAX_PAGE_SIZE,
		fromDate,
		startCursor: resume?.cursor,
	});
	for await (const page of pages) {
		for (const record of page.records) {
			const key = recordKey(record);
			const modifiedMs = Date.parse(String(record.modified));
			const endedMs = endedAtMs(record);
			if (modifiedMs > newMarkMs) newMarkMs = Math.min(modifiedMs, latestMarkMs);
			if (!window.isNew(key, endedMs)) continue;
			// Passed over by the status filter counts as handled too: switching it replays nothing.
			window.handled(key, endedMs);
			const matches = statusMatches(record, statuses);
			if (matches) fresh.push(record);
			if (modifiedMs > latestMarkMs) warnFutureDated(ctx, record, matches, latestMarkMs);
		}
		if (page.hasMore && Date.now() - nowMs >= budgetMs) {
			const cursor = page.nextCursor;
			next = cursor && cursor.length <= MAX_SAVED_CURSOR ? { fromDate, cursor } : undefined;
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

/** Says in n8n's log what became of a request dated after now + MAX_CLOCK_SKEW_MS. */
function warnFutureDated(
	ctx: IPollFunctions,
	record: IDataObject,
	started: boolean,
	latestMarkMs: number,
) {
	const what = started ? 'started the workflow once' : 'was passed over by the status filter';
	// The record's id and date are BotDojo's: the key is redacted from the line.
	const line = `BotDojo Trigger: flow request ${idForLog(record)} is dated ${String(record.modified).slice(0, 40)}, more than ${MAX_CLOCK_SKEW_MS / MINUTE_MS} minutes ahead of this n8n's clock. It ${what} and will not fire again; the high-water mark stops at ${toUtcIso(latestMarkMs)}, so later requests still fire.`;
	ctx.logger.warn(withoutKey(ctx, line));
}

function writeChanged(state: PollState, name: 'highWaterMark' | 'windowStart', value: string) {
	if (state[name] !== value) state[name] = value;
}

/** The handled window; a state saved by version 1.0 had handled everything up to its mark. */
function readWindow(state: PollState, markMs: number): HandledWindow {
	const startMs =
		typeof state.windowStart === 'string' ? Date.parse(state.windowStart) : Number.NaN;
	if (Number.isNaN(startMs)) {
		const window = new HandledWindow(markMs);
		for (const id of state.idsAtHighWaterMark ?? []) window.handled(recordKey({ id }), markMs);
		return window;
	}
	// Trigger 1.1 of package 0.1 saved long ids whole: they become the digests they are now.
	const saved = Object.entries(state.handled ?? {});
	const long = saved.some(([key]) => key.length > MAX_KEY_LENGTH);
	const window = new HandledWindow(
		startMs,
		long
			? Object.fromEntries(
					saved.map(([key, ms]) => [
						key.length > MAX_KEY_LENGTH ? recordKey({ id: key }) : key,
						ms,
					]),
				)
			: state.handled,
	);
	window.changed = long;
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
