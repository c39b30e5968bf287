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
 */
import type { FlowRequestRecord } from '../../shared/transport/api';

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

	/** Forgets what lies before `newestMs - WINDOW_MS`, and the oldest beyond MAX_REMEMBERED. */
	prune(newestMs: number): void {
		this.startMs = Math.max(this.startMs, newestMs - WINDOW_MS);
		if (this.ended.size > MAX_REMEMBERED) {
			const times = [...this.ended.values()].sort((a, b) => a - b);
			// Everything at the cut's millisecond goes too, so that no kept id shares the start.
			this.startMs = Math.max(this.startMs, times[this.ended.size - MAX_REMEMBERED - 1] + 1);
		}
		for (const [id, ms] of this.ended) {
			if (ms < this.startMs) {
				this.ended.delete(id);
				this.changed = true;
			}
		}
	}

	toSaved(): HandledIds {
		return Object.fromEntries(this.ended);
	}
}
