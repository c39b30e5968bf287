/**
 * The one NDJSON reader. It turns a byte stream of one-JSON-value-per-line into values as the
 * bytes arrive, and says clearly what went wrong, and after how many events, when it cannot.
 */
import { LineFault, NdjsonLines } from './ndjsonLines';
import type { RunDeadline } from './runDeadline';

export type NdjsonFailure =
	| 'malformed'
	| 'oversize'
	| 'incomplete'
	| 'idle'
	| 'timeout'
	| 'dropped'
	| 'cancelled';

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
	/** The run's Timeout and Idle Timeout: each chunk is stamped on it; when one passes, the stream stops. */
	deadline?: RunDeadline;
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

/** Reads NDJSON from `source` until the final value, within the run's deadline. */
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
	const cancelSignal = options.cancelSignal;
	if (cancelSignal?.aborted) onCancel();
	cancelSignal?.addEventListener('abort', onCancel, { once: true });
	const deadline = options.deadline;
	const onDeadline = () => {
		const passed = deadline?.reason;
		if (passed)
			stop(new NdjsonStreamError(passed.kind, `${passed.message}; ${arrived(events)}`, events));
	};
	if (deadline?.reason) onDeadline();
	deadline?.signal.addEventListener('abort', onDeadline, { once: true });

	// An error thrown while pushing that is no LineFault is the caller's own (from onValue):
	// it is passed on as it is, not taken for a dropped stream.
	let pushing = false;
	try {
		for await (const chunk of source) {
			deadline?.chunk();
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
		cancelSignal?.removeEventListener('abort', onCancel);
		deadline?.signal.removeEventListener('abort', onDeadline);
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
}
