/**
 * Which flow requests are new since the last poll. Each export starts LOOK_BACK_MS before a
 * high-water mark (the latest `modified` seen, but never later than now + MAX_CLOCK_SKEW_MS);
 * what decides whether a request starts the workflow is its key (recordKey.ts): a request
 * already handled, or one that ended before the trigger's window, never starts it again,
 * however often BotDojo modifies its record later (see handledWindow.ts).
 *
 * n8n hands a poll the static data (the activation's own object, or with its durable scheduler a
 * copy) and saves it when the poll emits (the last copy saved wins). So that two polls never
 * work on it at once, a poll never overlaps another of the same trigger (pollsRunning) and ends
 * within its budget (pollBudgetMs), emitting and saving what it has read by then.
 */
import { NodeApiError, type IDataObject, type IPollFunctions, type JsonObject } from 'n8n-workflow';

import { toUtcIso } from '../../shared/params/dates';
import { exportPages } from '../../shared/transport/api';
import { withoutKey } from '../../shared/transport/redaction';
import {
	dateMs,
	HandledWindow,
	endedAtMs,
	MAX_FUTURE,
	type FutureRange,
	type HandledIds,
} from './handledWindow';
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
	/** Forgotten requests dated in the future that count as handled; see handledWindow.ts. */
	futureRange?: FutureRange;
	/** Where an export cut short by the poll budget goes on: its From Date and the next cursor. */
	resume?: { fromDate: string; cursor: string };
	/** Written by version 1.0 of the trigger: the ids seen at exactly the high-water mark. */
	idsAtHighWaterMark?: string[];
}

/**
 * Longest a poll reads, its pages, retries and waits all included. n8n polls at most once a
 * minute, so a poll ends before the next tick; with its durable scheduler (getPollBudgetMs) it
 * reads at most half of the budget n8n gives, so that it is done well within it.
 */
const MAX_POLL_MS = 30_000;

/**
 * The triggers (workflow id and node) whose poll runs in this process. Without its durable
 * scheduler n8n starts a poll on every tick, even while the previous one still reads; both would
 * read the same state and emit the same requests. n8n polls only in its main process (in
 * multi-main, the leader alone; never on workers or webhook processes), so one guard per
 * process covers every poll of a trigger.
 */
const pollsRunning = new Set<string>();

const MINUTE_MS = 60 * 1000;
const DAY_MS = 24 * 60 * MINUTE_MS;

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

function statusMatches(record: IDataObject, statuses: StatusFilter) {
	return statuses === 'both' || record.status === statuses;
}

/**
 * The requests that finished since the previous poll and never started the workflow, oldest
 * first; updates the state. The first poll (or a poll after the flow was changed) only records
 * "now": history does not flood in. A poll that starts while another of the same trigger runs
 * returns nothing at once and leaves the state alone.
 */
export async function pollNewRecords(ctx: IPollFunctions, flowId: string, statuses: StatusFilter) {
	const trigger = `${ctx.getWorkflow().id ?? ''}\n${ctx.getNode().id ?? ctx.getNode().name}`;
	if (pollsRunning.has(trigger)) {
		ctx.logger.debug('BotDojo Trigger: the previous poll still runs; this one reads nothing');
		return [];
	}
	pollsRunning.add(trigger);
	try {
		return await readNewRecords(ctx, flowId, statuses);
	} finally {
		pollsRunning.delete(trigger);
	}
}

async function readNewRecords(ctx: IPollFunctions, flowId: string, statuses: StatusFilter) {
	const state = ctx.getWorkflowStaticData('node') as PollState;
	const nowMs = Date.now();
	const latestMarkMs = nowMs + MAX_CLOCK_SKEW_MS;
	const markMs = dateMs(state.highWaterMark);
	if (state.flowId !== flowId || Number.isNaN(markMs)) {
		const now = toUtcIso(nowMs);
		Object.assign(state, { flowId, highWaterMark: now, windowStart: now, handled: {} });
		delete state.resume;
		delete state.idsAtHighWaterMark;
		delete state.futureRange;
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
	/** Whether a text holds the API key: such a record id is saved as a digest only. */
	const quotesKey = (text: string) => withoutKey(ctx, text) !== text;
	const resume = state.resume;
	// Taken before the export: if it fails (say, BotDojo no longer accepts the cursor), the
	// next poll starts over at the mark instead of failing on the same cursor again.
	if (resume !== undefined) delete state.resume;
	const fromDate = resume?.fromDate ?? toUtcIso(newMarkMs - LOOK_BACK_MS);
	// A large backlog, or a slow BotDojo, is read over several polls: at the budget's end the
	// request or wait under way is ended, and the next poll goes on after the last page read.
	// Half n8n's budget, at most MAX_POLL_MS; n8n without its durable scheduler has no
	// getPollBudgetMs.
	const budgetMs = Math.min((ctx.getPollBudgetMs?.() ?? Infinity) / 2, MAX_POLL_MS);
	const budget = AbortSignal.timeout(budgetMs);
	let cursor = resume?.cursor;
	let pagesRead = 0;
	try {
		for await (const page of exportPages(ctx, {
			flowId,
			fromDate,
			startCursor: cursor,
			signal: budget,
		})) {
			// Once the key is known (after the first request), saved keys recordKey no longer gives
			// become what it gives, and the window, changed, is saved: package 0.1 saved long ids
			// (trigger 1.1) and ids quoting the key as they came.
			if (pagesRead++ === 0)
				window.rekey(
					(key) => key.length > MAX_KEY_LENGTH || quotesKey(key),
					(key) => recordKey({ id: key.replace(/^~string:/, '') }, quotesKey),
				);
			for (const record of page.records) {
				const key = recordKey(record, quotesKey);
				const modifiedMs = Date.parse(String(record.modified));
				const endedMs = endedAtMs(record);
				if (modifiedMs > newMarkMs) newMarkMs = Math.min(modifiedMs, latestMarkMs);
				if (!window.isNew(key, endedMs)) continue;
				// Passed over by the status filter counts as handled too: switching it replays nothing.
				window.handled(key, endedMs);
				const matches = statusMatches(record, statuses);
				if (matches) fresh.push(record);
				if (modifiedMs > latestMarkMs) {
					// Says in n8n's log what became of a request dated after now + MAX_CLOCK_SKEW_MS.
					const what = matches
						? 'started the workflow once'
						: 'was passed over by the status filter';
					// The record's id and date are BotDojo's: the key is redacted from the line.
					const line = `BotDojo Trigger: flow request ${idForLog(record)} is dated ${String(record.modified).slice(0, 40)}, more than ${MAX_CLOCK_SKEW_MS / MINUTE_MS} minutes ahead of this n8n's clock. It ${what} and will not fire again; the high-water mark stops at ${toUtcIso(latestMarkMs)}, so later requests still fire.`;
					ctx.logger.warn(withoutKey(ctx, line));
				}
			}
			cursor = page.hasMore ? page.nextCursor : undefined;
			if (page.hasMore && budget.aborted) break;
		}
	} catch (error) {
		// The budget's end after a page: the poll emits what it read and goes on next time. Before
		// BotDojo answered the first page, the poll fails.
		const cut = budget.aborted;
		if (!cut || pagesRead === 0) {
			throw cut
				? new NodeApiError(ctx.getNode(), {} as JsonObject, {
						message: `BotDojo's export of flow "${flowId}" did not answer within the poll's ${Math.round(budgetMs / 1000)} s`,
						description:
							'The poll was ended so that it never overlaps the next one. Nothing was lost: the next poll asks again from the same point. If this repeats, BotDojo is slow or unreachable; check its status.',
					})
				: error;
		}
	}
	if (budget.aborted && cursor && cursor.length <= MAX_SAVED_CURSOR) {
		state.resume = { fromDate, cursor };
	}

	const intoRange = window.prune(newMarkMs);
	if (intoRange > 0) {
		const [fromMs, toMs] = window.futureRange as FutureRange;
		ctx.logger.warn(
			`BotDojo Trigger: more than ${MAX_FUTURE.toLocaleString('en-US')} requests are dated in the future; ${intoRange.toLocaleString('en-US')} more of them are now remembered only as a range of dates, ${toUtcIso(fromMs)} to ${toUtcIso(toMs)}. They will not fire again, nor will a request dated within that range that reaches BotDojo's export later.`,
		);
	}

	// n8n saves the static data (up to 10,000 ids) after a poll that wrote or deleted anything in
	// it, even the same value: an idle poll must leave it untouched.
	const highWaterMark = toUtcIso(newMarkMs);
	const windowStart = toUtcIso(window.startMs);
	if (state.highWaterMark !== highWaterMark) state.highWaterMark = highWaterMark;
	if (state.windowStart !== windowStart) state.windowStart = windowStart;
	if (window.changed || state.handled === undefined) {
		state.handled = window.toSaved();
		if (window.futureRange) state.futureRange = window.futureRange;
		else delete state.futureRange;
	}
	if (state.idsAtHighWaterMark !== undefined) delete state.idsAtHighWaterMark;
	return fresh;
}

/** The handled window; a state saved by version 1.0 had handled everything up to its mark. */
function readWindow(state: PollState, markMs: number) {
	const startMs = dateMs(state.windowStart);
	if (Number.isNaN(startMs)) {
		const window = new HandledWindow(markMs);
		for (const id of state.idsAtHighWaterMark ?? []) window.handled(recordKey({ id }), markMs);
		return window;
	}
	return new HandledWindow(
		startMs,
		state.handled,
		Array.isArray(state.futureRange) ? state.futureRange : undefined,
	);
}

/** The most recent finished request of the flow (for a manual run), if any, without touching
 *  the state. */
export async function latestRecord(ctx: IPollFunctions, flowId: string, statuses: StatusFilter) {
	const now = Date.now();
	for (const windowMs of MANUAL_WINDOWS_MS) {
		let latest: IDataObject | undefined;
		const fromDate = windowMs === undefined ? undefined : toUtcIso(now - windowMs);
		for await (const page of exportPages(ctx, { flowId, fromDate })) {
			for (const record of page.records) if (statusMatches(record, statuses)) latest = record;
		}
		if (latest) return [latest];
	}
	return [];
}
