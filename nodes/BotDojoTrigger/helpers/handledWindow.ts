/**
 * The requests the trigger has already handled (started the workflow for, or passed over
 * because of the Statuses filter), so that each flow request id
 * fires at most once even when BotDojo modifies its record later (an async evaluation, a tag):
 * the export then returns it again with a newer `modified`.
 *
 * Memory is bounded by a window over the time a request *ended* (`endTime`, which does not move
 * when the record is modified later): the ids of handled requests that ended within
 * WINDOW_MS of the newest `modified` seen, at most MAX_REMEMBERED of them. A request that ended
 * before the window start is never delivered (it was handled then, or it ended before the
 * trigger was activated), so shrinking the window can only drop a delivery, never repeat one.
 *
 * Requests dated after the mark (in the future) cannot move the window's start: requests still
 * to come end before them. They keep at most MAX_FUTURE of the MAX_REMEMBERED places, so that a
 * flood of them never pushes out the others; beyond it, the earliest of them (by end time, then
 * key) are forgotten into one range, `futureRange`, that counts as handled: they never fire again
 * (BotDojo returns them at every poll), and a request showing up later within that range, dated
 * between two of them, is passed over.
 *
 * Ids are the keys of recordKey.ts (at most MAX_KEY_LENGTH characters), so the saved map is at
 * most MAX_REMEMBERED × about 85 bytes of JSON (850 KB), whatever the ids look like.
 */
import type { FlowRequestRecord } from '../../shared/transport/api';

/** How long after a request ended a later change of its record is still recognised. */
const WINDOW_MS = 7 * 24 * 60 * 60 * 1000;

/** Most ids remembered; a busier flow gets a shorter window instead of more memory. */
const MAX_REMEMBERED = 10_000;

/** Most places of MAX_REMEMBERED that requests dated in the future may hold. */
export const MAX_FUTURE = 1_000;

/** The saved form, in the workflow's static data: id → end time (ms since epoch). */
export type HandledIds = Record<string, number>;

/** Forgotten requests dated in the future, treated as handled: from an end time (ms) up to an
 *  end time and key, inclusive. */
export type FutureRange = [fromMs: number, toMs: number, toKey: string];

/** Whether request (ms, key) comes after (toMs, toKey): by end time, then by key. */
function isAfter(ms: number, key: string, toMs: number, toKey: string) {
	return ms > toMs || (ms === toMs && key > toKey);
}

/** A date text's milliseconds since the epoch; NaN when it is none. */
export function dateMs(value: unknown) {
	return typeof value === 'string' ? Date.parse(value) : NaN;
}

/** When a request ended: `endTime`, else `created` (neither moves later), else `modified`. */
export function endedAtMs(record: FlowRequestRecord) {
	for (const field of ['endTime', 'created', 'modified']) {
		const ms = dateMs(record[field]);
		if (!Number.isNaN(ms)) return ms;
	}
	return undefined;
}

export class HandledWindow {
	private readonly ended: Map<string, number>;
	/** Whether an id was added or forgotten since the saved form was read. */
	changed = false;

	/**
	 * @param startMs requests that ended before this are treated as already handled
	 * @param saved   the ids handled so far
	 */
	constructor(
		public startMs: number,
		saved: HandledIds = {},
		public futureRange?: FutureRange,
	) {
		this.ended = new Map(Object.entries(saved));
	}

	/** Whether this request is new: not handled yet, not ended before the window, and not in the
	 *  range of forgotten future-dated requests. */
	isNew(id: string, endedMs: number | undefined) {
		if (this.ended.has(id)) return false;
		if (endedMs === undefined) return true;
		const range = this.futureRange;
		const forgotten = range && endedMs >= range[0] && !isAfter(endedMs, id, range[1], range[2]);
		return endedMs >= this.startMs && !forgotten;
	}

	handled(id: string, endedMs: number | undefined) {
		this.ended.set(id, endedMs ?? this.startMs);
		this.changed = true;
	}

	/**
	 * Forgets what lies before `markMs - WINDOW_MS`; beyond MAX_FUTURE requests dated after the
	 * mark, the earliest of them (into futureRange); then the oldest beyond MAX_REMEMBERED. The
	 * window never starts after the mark (at most now + MAX_CLOCK_SKEW_MS): requests still to
	 * come may end up to then. Returns how many future-dated requests went into futureRange.
	 */
	prune(markMs: number) {
		this.startMs = Math.max(this.startMs, markMs - WINDOW_MS);
		const future = [...this.ended].filter(([, ms]) => ms > markMs);
		const overflow = Math.max(0, future.length - MAX_FUTURE);
		if (overflow > 0) {
			future.sort(([keyA, a], [keyB, b]) => a - b || (keyA < keyB ? -1 : 1));
			const gone = future.slice(0, overflow);
			for (const [id] of gone) this.forget(id);
			const kept = this.futureRange;
			const [lastKey, lastMs] = gone[gone.length - 1];
			const fromMs = Math.min(gone[0][1], kept?.[0] ?? Infinity);
			this.futureRange =
				kept && !isAfter(lastMs, lastKey, kept[1], kept[2])
					? [fromMs, kept[1], kept[2]]
					: [fromMs, lastMs, lastKey];
		}
		// At most MAX_FUTURE future-dated ids are left: the excess is all of the past ones.
		const excess = this.ended.size - MAX_REMEMBERED;
		if (excess > 0) {
			const times = [...this.ended.values()].filter((ms) => ms <= markMs).sort((a, b) => a - b);
			// Everything at the cut's millisecond goes too, so that no kept id shares the start.
			const cutMs = times[excess - 1] + 1;
			this.startMs = Math.max(this.startMs, Math.min(cutMs, markMs));
		}
		for (const [id, ms] of this.ended) {
			if (ms < this.startMs) this.forget(id);
		}
		if (this.futureRange && this.futureRange[1] < this.startMs) {
			this.futureRange = undefined;
			this.changed = true;
		}
		return overflow;
	}

	/** Drops an id (pruning, re-keying). */
	forget(id: string) {
		this.ended.delete(id);
		this.changed = true;
	}

	/** Saved keys that recordKey no longer gives (`outdated`) become what it gives (`keyOf`). */
	rekey(outdated: (key: string) => boolean, keyOf: (key: string) => string) {
		for (const [key, ms] of [...this.ended]) {
			if (!outdated(key)) continue;
			this.forget(key);
			this.handled(keyOf(key), ms);
		}
		const range = this.futureRange;
		if (range && outdated(range[2])) {
			range[2] = keyOf(range[2]);
			this.changed = true;
		}
	}

	toSaved() {
		return Object.fromEntries(this.ended);
	}
}
