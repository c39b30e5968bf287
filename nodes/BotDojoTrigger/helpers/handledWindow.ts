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
 * The one exception: beyond MAX_REMEMBERED requests dated after the mark (in the future), the
 * oldest of them are forgotten and fire again if BotDojo still returns them.
 *
 * Ids are the keys of recordKey.ts (at most MAX_KEY_LENGTH characters), so the saved map is at
 * most MAX_REMEMBERED × about 85 bytes of JSON (850 KB), whatever the ids look like.
 */
import type { FlowRequestRecord } from '../../shared/transport/answers';

/** How long after a request ended a later change of its record is still recognised. */
export const WINDOW_MS = 7 * 24 * 60 * 60 * 1000;

/** Most ids remembered; a busier flow gets a shorter window instead of more memory. */
export const MAX_REMEMBERED = 10_000;

/** The saved form, in the workflow's static data: id → end time (ms since epoch). */
export type HandledIds = Record<string, number>;

/** When a request ended: `endTime`, else `created` (neither moves later), else `modified`. */
export function endedAtMs(record: FlowRequestRecord): number | undefined {
	for (const field of ['endTime', 'created', 'modified'] as const) {
		const value = record[field];
		const ms = typeof value === 'string' ? Date.parse(value) : NaN;
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
	) {
		this.ended = new Map(Object.entries(saved));
	}

	/** Whether this request is new: not handled yet, and not ended before the window. */
	isNew(id: string, endedMs: number | undefined): boolean {
		if (this.ended.has(id)) return false;
		return endedMs === undefined || endedMs >= this.startMs;
	}

	handled(id: string, endedMs: number | undefined): void {
		this.ended.set(id, endedMs ?? this.startMs);
		this.changed = true;
	}

	/**
	 * Forgets what lies before `markMs - WINDOW_MS`, and the oldest beyond MAX_REMEMBERED. The
	 * window never starts after the mark (at most now + MAX_CLOCK_SKEW_MS): requests dated in the
	 * future, remembered by their own end time, must not push it past requests still to come.
	 */
	prune(markMs: number): void {
		this.startMs = Math.max(this.startMs, markMs - WINDOW_MS);
		if (this.ended.size > MAX_REMEMBERED) {
			const times = [...this.ended.values()].sort((a, b) => a - b);
			// Everything at the cut's millisecond goes too, so that no kept id shares the start.
			const cutMs = times[this.ended.size - MAX_REMEMBERED - 1] + 1;
			this.startMs = Math.max(this.startMs, Math.min(cutMs, markMs));
		}
		for (const [id, ms] of this.ended) {
			if (ms < this.startMs) this.forget(id);
		}
		// Left beyond the bound only by future-dated requests: the oldest of them go.
		if (this.ended.size > MAX_REMEMBERED) {
			const byTime = [...this.ended].sort((a, b) => a[1] - b[1]);
			for (const [id] of byTime.slice(0, this.ended.size - MAX_REMEMBERED)) this.forget(id);
		}
	}

	private forget(id: string): void {
		this.ended.delete(id);
		this.changed = true;
	}

	toSaved(): HandledIds {
		return Object.fromEntries(this.ended);
	}
}
