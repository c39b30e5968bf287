/**
 * The one NDJSON reader: a byte stream of one JSON value per line turned into values as the
 * bytes arrive, within the run's deadline, with a line-size guard; it says clearly what went
 * wrong, and after how many events, when it cannot. Blank lines cost only reading them.
 */
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

/** Longest line accepted, in characters (so at least this many bytes): 16 Mi. */
export const DEFAULT_MAX_LINE_CHARS = 16 * 1024 * 1024;

const EVENT_LINE = /^\s*\{\s*"tag"\s*:/;
const BLANK = /^\s*$/;
/** The piece of the input V8's JSON.parse message quotes: `, ..."abc"... is not valid JSON`. */
const PARSER_QUOTE = /,\s*(?:\.\.\.)?"[\s\S]*"(?:\.\.\.)?\s+is not valid JSON$/;

/** A line problem found by NdjsonLines; the stream reader adds the event count. */
export class LineFault extends Error {
	constructor(
		readonly kind: 'malformed' | 'oversize',
		readonly detail: string,
	) {
		super(detail);
	}
}

/** Concatenation without copying: V8 keeps long joined strings as ropes. */
export function rope(parts: readonly string[]): string {
	let text = '';
	for (const part of parts) text += part;
	return text;
}

/**
 * Bytes → lines → values. Lines and multi-byte characters may be split across chunks: the
 * TextDecoder in stream mode keeps partial characters, and a partial line is kept as pieces
 * (joined once, when its newline arrives) up to `maxLineChars`.
 */
export class NdjsonLines {
	private readonly decoder = new TextDecoder('utf-8');

	/** The current line's pieces, and their length. */
	private pending: string[] = [];

	private pendingLength = 0;

	/** Lines seen so far, blank ones included. */
	lineNumber = 0;

	/** Characters of the lines read so far. */
	private charsRead = 0;

	constructor(
		private readonly onValue: (value: unknown) => void,
		private readonly maxLineChars = DEFAULT_MAX_LINE_CHARS,
	) {}

	push(chunk: Uint8Array | string): void {
		const text = typeof chunk === 'string' ? chunk : this.decoder.decode(chunk, { stream: true });
		let start = 0;
		for (let newline = text.indexOf('\n'); newline !== -1; newline = text.indexOf('\n', start)) {
			const piece = text.slice(start, newline);
			if (this.pendingLength === 0) this.parse(piece);
			else {
				this.hold(piece);
				const line = rope(this.pending);
				this.pending = [];
				this.pendingLength = 0;
				this.parse(line);
			}
			start = newline + 1;
		}
		if (start < text.length) this.hold(start === 0 ? text : text.slice(start));
	}

	/** The stream ended: a last line without a newline still counts. */
	end(): void {
		const rest = this.decoder.decode();
		if (rest) this.hold(rest);
		if (this.pendingLength > 0) this.parse(rope(this.pending));
		this.pending = [];
		this.pendingLength = 0;
	}

	private hold(part: string): void {
		if (part.length === 0) return;
		this.pendingLength += part.length;
		this.pending.push(part);
		if (this.pendingLength > this.maxLineChars) this.check(this.pendingLength, this.head());
	}

	/** The first characters of the held line. */
	private head(): string {
		let head = '';
		for (const piece of this.pending) {
			head += piece.slice(0, 80 - head.length);
			if (head.length >= 80) break;
		}
		return head;
	}

	/**
	 * A line over the limit. An event line (`{"tag":…`) is refused. The final result line carries
	 * the answer twice (text_output and aiMessage.content), so it may be longer by twice what the
	 * stream sent before it: a runaway line is still refused, a large answer is not.
	 */
	private check(length: number, head: string): void {
		const isEvent = EVENT_LINE.test(head.length > 80 ? head.slice(0, 80) : head);
		if (!isEvent && length <= this.maxLineChars + 2 * this.charsRead) return;
		this.pending = [];
		this.pendingLength = 0;
		throw new LineFault(
			'oversize',
			`Line ${this.lineNumber + 1} of the stream is longer than ${this.maxLineChars} characters (at least ${length} so far) and was refused rather than held in memory`,
		);
	}

	private parse(line: string): void {
		if (line.length > this.maxLineChars) this.check(line.length, line);
		this.lineNumber++;
		this.charsRead += line.length;
		// A blank line costs only reading it: no parse, no caught exception.
		if (BLANK.test(line)) return;
		let value: unknown;
		try {
			value = JSON.parse(line);
		} catch (error) {
			throw malformed(this.lineNumber, error, line);
		}
		this.onValue(value);
	}
}

/** Line `lineNumber` is not valid JSON. */
function malformed(lineNumber: number, error: unknown, line: string): LineFault {
	const preview = line.length > 80 ? `${line.slice(0, 80)}…` : line;
	// V8 quotes a piece of the line in its message, cut where no redaction can see a key:
	// the preview says the same, whole enough to be redacted.
	const reason = (error as Error).message.replace(PARSER_QUOTE, '');
	return new LineFault(
		'malformed',
		`Line ${lineNumber} of the stream is not valid JSON (${reason}): ${JSON.stringify(preview)}`,
	);
}

/** The caller's own error, unchanged (the caller maps it). */
function passOn(error: unknown): unknown {
	return error;
}

export interface NdjsonStreamOptions {
	/** Called for each value; returns true for the final value, after which reading stops. */
	onValue: (value: unknown) => boolean | void;
	/** Called after each chunk of the source was read (e.g. to send what it brought at once). */
	onChunkRead?: () => void;
	/** Ends the source early (e.g. destroys the HTTP body) so that its iteration stops. */
	stopSource: (reason: Error) => void;
	maxLineChars?: number;
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

/** The connection dropped while the stream was read. */
function dropped(error: unknown, events: number): NdjsonStreamError {
	const detail = (error as Error)?.message ?? String(error);
	const message = `The connection dropped before the final result line (${detail}); ${arrived(events)}`;
	return new NdjsonStreamError('dropped', message, events, error);
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
	const lines = new NdjsonLines((value) => {
		if (finished) return;
		if (options.onValue(value) === true) {
			final = value;
			finished = true;
		} else events++;
	}, options.maxLineChars);

	let stopReason: NdjsonStreamError | undefined;
	const stop = (kind: NdjsonFailure, message: string) => {
		if (stopReason) return;
		stopReason = new NdjsonStreamError(kind, `${message}; ${arrived(events)}`, events);
		options.stopSource(stopReason);
	};
	const onCancel = () => stop('cancelled', 'The run was canceled while its stream was being read');
	const { cancelSignal, deadline } = options;
	const onDeadline = () => {
		const passed = deadline?.reason;
		if (passed) stop(passed.kind, passed.message);
	};
	if (cancelSignal?.aborted) onCancel();
	cancelSignal?.addEventListener('abort', onCancel, { once: true });
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
		if (error instanceof LineFault) {
			// A bad line: hang up at once rather than read on to the end.
			const failure = new NdjsonStreamError(
				error.kind,
				`${error.detail}; ${arrived(events)}`,
				events,
			);
			options.stopSource(failure);
			throw failure;
		}
		throw dropped(error, events);
	} finally {
		cancelSignal?.removeEventListener('abort', onCancel);
		deadline?.signal.removeEventListener('abort', onDeadline);
	}
	if (stopReason) throw stopReason;
	if (!finished) {
		const message = `The stream ended without the final result line; ${arrived(events)}`;
		throw new NdjsonStreamError('incomplete', message, events);
	}
	return { final, events };
}
