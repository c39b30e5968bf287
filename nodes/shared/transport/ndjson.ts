/**
 * The one NDJSON reader: bytes of one JSON value per line turned into values as they arrive,
 * within the run's deadline and a line bound; a failure says what, and after how many events.
 */
export type NdjsonFailure = LineFailure | DeadlineKind | 'incomplete' | 'dropped' | 'cancelled';
type LineFailure = 'malformed' | 'oversize' | 'overlong';
type DeadlineKind = 'timeout' | 'idle';

/** A stream that could not be read to its final line; `events` counts what had arrived. */
export class NdjsonStreamError extends Error {
	constructor(
		readonly kind: NdjsonFailure,
		message: string,
		readonly events: number,
	) {
		super(message);
		this.name = 'NdjsonStreamError';
	}
}

/** A bad line, as NdjsonLines finds it: the stream reader adds the event count. */
class LineFault extends NdjsonStreamError {}

/** A whole stream is at most this many times the longest line (short events without end would
 *  otherwise hold n8n's memory until the run's Timeout). */
export const STREAM_LINES = 16;

const EVENT_LINE = /^\s*\{\s*"tag"\s*:/;
const BLANK = /^\s*$/;
const CANCELED = 'The run was canceled while its stream was being read';
/** The piece of the input V8's JSON.parse message quotes: `, ..."abc"... is not valid JSON`. */
const PARSER_QUOTE = /,\s*(?:\.\.\.)?"[\s\S]*"(?:\.\.\.)?\s+is not valid JSON$/;

/** Concatenation without copying: V8 keeps long joined strings as ropes. */
export function rope(parts: readonly string[]): string {
	let text = '';
	for (const part of parts) text += part;
	return text;
}

/** Bytes → lines → values; a character or a line split across chunks is held until whole. */
export class NdjsonLines {
	private readonly decoder = new TextDecoder('utf-8');
	/** The current line's pieces (joined once its newline arrives) and their length. */
	private pending: string[] = [];
	private pendingLength = 0;
	/** Lines read so far (blank ones included), and their characters. */
	private lineCount = 0;
	private charsRead = 0;
	/** Characters of the whole stream so far: at most STREAM_LINES lines of the longest. */
	private streamChars = 0;

	constructor(
		private readonly onValue: (value: unknown) => void,
		private readonly maxLineChars = 16 * 1024 * 1024,
	) {}

	push(chunk: Uint8Array | string): void {
		const text = typeof chunk === 'string' ? chunk : this.decoder.decode(chunk, { stream: true });
		this.streamChars += text.length;
		if (this.streamChars > STREAM_LINES * this.maxLineChars) {
			const message = `The stream is longer than ${STREAM_LINES * this.maxLineChars} characters in all and was refused rather than held in memory`;
			throw new LineFault('overlong', message, 0);
		}
		let start = 0;
		for (let newline = text.indexOf('\n'); newline !== -1; newline = text.indexOf('\n', start)) {
			this.parse(this.take(text.slice(start, newline)));
			start = newline + 1;
		}
		if (start < text.length) this.hold(text.slice(start));
	}

	/** The stream ended: a last line without a newline still counts. */
	end(): void {
		const rest = this.decoder.decode();
		if (rest || this.pendingLength > 0) this.parse(this.take(rest));
	}

	private hold(piece: string): void {
		this.pending.push(piece);
		this.pendingLength += piece.length;
		if (this.pendingLength > this.maxLineChars) this.check(this.pendingLength, this.pending);
	}

	/** The line that `last` ends, whole; nothing is held after. */
	private take(last: string): string {
		if (this.pendingLength === 0) return last;
		this.hold(last);
		const line = rope(this.pending);
		this.pending = [];
		this.pendingLength = 0;
		return line;
	}

	/**
	 * Refuses a line past `maxLineChars` (default 16 Mi), but for the final result line (no event
	 * `{"tag":…`): it carries the answer twice, so may be longer by twice what came before it.
	 */
	private check(length: number, pieces: string[]): void {
		const head = rope(pieces.slice(0, 80).map((piece) => piece.slice(0, 80))).slice(0, 80);
		if (!EVENT_LINE.test(head) && length <= this.maxLineChars + 2 * this.charsRead) return;
		const size = `${this.maxLineChars} characters (at least ${length} so far)`;
		const message = `Line ${this.lineCount + 1} of the stream is longer than ${size}`;
		throw new LineFault('oversize', `${message} and was refused rather than held in memory`, 0);
	}

	private parse(line: string): void {
		if (line.length > this.maxLineChars) this.check(line.length, [line]);
		this.lineCount++;
		this.charsRead += line.length;
		if (BLANK.test(line)) return; // no parse, no caught exception
		let value: unknown;
		try {
			value = JSON.parse(line);
		} catch (error) {
			throw this.malformed(line, error);
		}
		this.onValue(value);
	}

	/** V8 quotes a piece of the line, cut where redaction can miss a key: the preview is whole. */
	private malformed(line: string, error: unknown): LineFault {
		const reason = (error as Error).message.replace(PARSER_QUOTE, '');
		const preview = JSON.stringify(line.length > 80 ? `${line.slice(0, 80)}…` : line);
		const message = `Line ${this.lineCount} of the stream is not valid JSON (${reason}): ${preview}`;
		return new LineFault('malformed', message, 0);
	}
}

/** What the reader uses of the run's Timeout and Idle Timeout (Run Flow's RunDeadline). */
export interface StreamDeadline {
	signal: AbortSignal;
	reason?: { kind: DeadlineKind; message: string };
	chunk(): void;
}

export interface NdjsonStreamOptions {
	/** Called for each value; returns true for the final value, after which reading stops. */
	onValue: (value: unknown) => boolean | void;
	/** Called after each chunk of the source was read (e.g. to send what it brought at once). */
	onChunkRead?: () => void;
	/** Ends the source early (e.g. destroys the HTTP body) so that its iteration stops. */
	stopSource: (reason: Error) => void;
	maxLineChars?: number;
	deadline?: StreamDeadline;
	cancelSignal?: AbortSignal;
}

/** Reads NDJSON from `source` until the final value; `events` counts the values before it. */
export async function readNdjsonStream(
	source: AsyncIterable<Uint8Array | string>,
	options: NdjsonStreamOptions,
): Promise<{ final: unknown; events: number }> {
	const { cancelSignal, deadline } = options;
	let events = 0;
	let final: { value: unknown } | undefined;
	let stopped: Error | undefined;
	const failure = (kind: NdjsonFailure, message: string) => {
		const arrived = `${events} event${events === 1 ? '' : 's'} had arrived`;
		return new NdjsonStreamError(kind, `${message}; ${arrived}`, events);
	};
	// The first reason wins: a Stop, a limit of the run, a bad line, or the caller's own error.
	const stop = (reason: Error) => {
		if (stopped) return;
		stopped = reason;
		options.stopSource(reason);
	};
	const onAbort = () => {
		if (cancelSignal?.aborted) stop(failure('cancelled', CANCELED));
		else if (deadline?.reason) stop(failure(deadline.reason.kind, deadline.reason.message));
	};
	const signals = [cancelSignal, deadline?.signal];
	onAbort();
	for (const signal of signals) signal?.addEventListener('abort', onAbort, { once: true });
	const lines = new NdjsonLines((value) => {
		if (final) return;
		if (options.onValue(value) === true) final = { value };
		else events++;
	}, options.maxLineChars);
	let parsing = false; // an error then is a bad line or the caller's own (its callbacks run then)
	try {
		for await (const chunk of source) {
			deadline?.chunk();
			parsing = true;
			lines.push(chunk);
			options.onChunkRead?.();
			parsing = false;
			if (final || stopped) break;
		}
		parsing = true;
		if (!final && !stopped) lines.end();
	} catch (error) {
		const detail = (error as Error)?.message ?? String(error);
		const dropped = `The connection dropped before the final result line (${detail})`;
		// A bad line: hang up at once. The caller's own error (a callback's) is passed on as it is.
		if (error instanceof LineFault) stop(failure(error.kind, error.message));
		else if (parsing) stop(error as Error);
		else stopped ??= failure('dropped', dropped);
	} finally {
		for (const signal of signals) signal?.removeEventListener('abort', onAbort);
	}
	if (stopped) throw stopped;
	if (!final) throw failure('incomplete', 'The stream ended without the final result line');
	return { final: final.value, events };
}
