/**
 * The one NDJSON reader. It turns a byte stream of one-JSON-value-per-line into values as the
 * bytes arrive, and says clearly what went wrong, and after how many events, when it cannot.
 */
import { sleep } from 'n8n-workflow';

import { LineFault, NdjsonLines } from './ndjsonLines';

export { DEFAULT_MAX_LINE_CHARS, NdjsonLines } from './ndjsonLines';
export { LongLine } from './longLine';

export type NdjsonFailure =
	| 'malformed'
	| 'oversize'
	| 'incomplete'
	| 'idle'
	| 'timeout'
	| 'dropped'
	| 'cancelled';

/**
 * The reason given when a timer's signal is aborted because its wait is no longer needed: one
 * shared value, as `abort()` without a reason builds a new DOMException (with its stack) each time.
 */
export const TIMER_NOT_NEEDED = new Error('The wait was no longer needed');

/** A stream that could not be read to its final line; `events` counts what had arrived. */
export class NdjsonStreamError extends Error {
	constructor(
		readonly kind: NdjsonFailure,
		message: string,
		readonly events: number,
		readonly cause?: unknown,
	) {
		super(message);
		this.name = 'NdjsonStreamError';
	}
}

export interface NdjsonStreamOptions {
	/** Called for each value; returns true for the final value, after which reading stops. */
	onValue: (value: unknown) => boolean | void;
	/** Called after each chunk of the source was read (e.g. to send what it brought at once). */
	onChunkRead?: () => void;
	/** Ends the source early (e.g. destroys the HTTP body) so that its iteration stops. */
	stopSource: (reason: Error) => void;
	maxLineChars?: number;
	/** The text streamed so far, in parts: a long string of the final line equal to it is not held twice. */
	knownText?: () => readonly string[];
	/** Longest pause between two chunks, in ms; 0 or absent: no limit. */
	idleTimeoutMs?: number;
	/** Time limit for the whole stream, in ms from `startedAt`; 0 or absent: no limit. */
	totalTimeoutMs?: number;
	startedAt?: number;
	/** The execution's cancel signal: ends the stream at once. */
	cancelSignal?: AbortSignal;
}

export interface NdjsonStreamResult {
	final: unknown;
	/** Values before the final one. */
	events: number;
}

/** What a failed iteration of the source means: a bad line, or a dropped connection. */
function readFailure(error: unknown, events: number): NdjsonStreamError {
	if (error instanceof LineFault) {
		return new NdjsonStreamError(error.kind, `${error.detail}; ${arrived(events)}`, events);
	}
	const detail = (error as Error)?.message ?? String(error);
	return new NdjsonStreamError(
		'dropped',
		`The connection dropped before the final result line (${detail}); ${arrived(events)}`,
		events,
		error,
	);
}

/** The caller's own error, unchanged (the caller maps it). */
function passOn(error: unknown): unknown {
	return error;
}

function arrived(events: number): string {
	return `${events} event${events === 1 ? '' : 's'} had arrived`;
}

/**
 * Reads NDJSON from `source` until the final value. Idle and total timeouts are kept by one
 * watchdog loop (no timer per chunk): each chunk only stamps the time it arrived.
 */
export async function readNdjsonStream(
	source: AsyncIterable<Uint8Array | string>,
	options: NdjsonStreamOptions,
): Promise<NdjsonStreamResult> {
	let events = 0;
	let final: unknown;
	let finished = false;
	const lines = new NdjsonLines(
		(value) => {
			if (finished) return;
			if (options.onValue(value) === true) {
				final = value;
				finished = true;
			} else events++;
		},
		options.maxLineChars,
		options.knownText,
	);

	let lastChunkAt = Date.now();
	let stopReason: NdjsonStreamError | undefined;
	const stop = (reason: NdjsonStreamError) => {
		if (stopReason) return;
		stopReason = reason;
		options.stopSource(reason);
	};
	const onCancel = () =>
		stop(
			new NdjsonStreamError(
				'cancelled',
				`The run was canceled while its stream was being read; ${arrived(events)}`,
				events,
			),
		);
	const watchdogDone = new AbortController();
	const cancelSignal = options.cancelSignal;
	if (cancelSignal?.aborted) onCancel();
	cancelSignal?.addEventListener('abort', onCancel, { once: true });
	void watch();

	// An error thrown while pushing that is no LineFault is the caller's own (from onValue):
	// it is passed on as it is, not taken for a dropped stream.
	let pushing = false;
	try {
		for await (const chunk of source) {
			lastChunkAt = Date.now();
			pushing = true;
			lines.push(chunk);
			options.onChunkRead?.();
			pushing = false;
			if (finished || stopReason) break;
		}
		if (!finished && !stopReason) lines.end();
	} catch (error) {
		if (stopReason) throw stopReason;
		if (pushing && !(error instanceof LineFault)) {
			options.stopSource(error as Error);
			throw passOn(error);
		}
		const failure = readFailure(error, events);
		// A bad line: hang up at once rather than read on to the end.
		if (failure.kind !== 'dropped') options.stopSource(failure);
		throw failure;
	} finally {
		watchdogDone.abort(TIMER_NOT_NEEDED);
		cancelSignal?.removeEventListener('abort', onCancel);
	}
	if (stopReason) throw stopReason;
	if (!finished) {
		throw new NdjsonStreamError(
			'incomplete',
			`The stream ended without the final result line; ${arrived(events)}`,
			events,
		);
	}
	return { final, events };

	/** Sleeps until the nearest limit, then either stops the source or sleeps again. */
	async function watch(): Promise<void> {
		const idle = options.idleTimeoutMs ?? 0;
		const total = options.totalTimeoutMs ?? 0;
		if (idle <= 0 && total <= 0) return;
		const deadline = total > 0 ? (options.startedAt ?? Date.now()) + total : Infinity;
		while (!watchdogDone.signal.aborted && !stopReason) {
			const now = Date.now();
			const idleLeft = idle > 0 ? lastChunkAt + idle - now : Infinity;
			const totalLeft = deadline - now;
			if (totalLeft <= 0) {
				stop(
					new NdjsonStreamError(
						'timeout',
						`The run took longer than the timeout of ${total} ms; ${arrived(events)}`,
						events,
					),
				);
				return;
			}
			if (idleLeft <= 0) {
				stop(
					new NdjsonStreamError(
						'idle',
						`The stream stalled: nothing arrived for ${idle} ms; ${arrived(events)}`,
						events,
					),
				);
				return;
			}
			try {
				await sleep(Math.max(1, Math.min(idleLeft, totalLeft)), watchdogDone.signal);
			} catch {
				return;
			}
		}
	}
}
