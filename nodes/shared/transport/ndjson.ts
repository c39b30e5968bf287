/**
 * The one NDJSON reader: bytes of one JSON value per line turned into values as they arrive,
 * within the run's deadline, the stream's bound and a line bound (readWithin); a failure says
 * what, and after how many events.
 */
import { errorText, ReadFailure, type ReadFailureKind } from './errors';
import { readWithin, type Deadline, type Readable } from './request';

/** A whole stream is at most this many times the longest line (short events without end would
 *  otherwise hold n8n's memory until the run's Timeout). */
export const STREAM_LINES = 16;

const EVENT_LINE = /^\s*\{\s*"tag"\s*:/;
const BLANK = /^\s*$/;
/** The piece of the input V8's JSON.parse message quotes: `, ..."abc"... is not valid JSON`. */
const PARSER_QUOTE = /,\s*(?:\.\.\.)?"[\s\S]*"(?:\.\.\.)?\s+is not valid JSON$/;

/** Bytes → lines → values; a character or a line split across chunks is held until whole. A bad
 *  line throws a ReadFailure ('oversize', 'malformed'): the stream reader adds the event count. */
export class NdjsonLines {
	private readonly decoder = new TextDecoder('utf-8');
	/** The current line's pieces (joined once its newline arrives) and their length. */
	private pending: string[] = [];
	private pendingLength = 0;
	/** Lines read so far (blank ones included), and their characters. */
	private lineCount = 0;
	private charsRead = 0;

	constructor(
		private readonly onValue: (value: unknown) => void,
		readonly maxLineChars = 16 * 1024 * 1024,
	) {}

	push(chunk: Uint8Array | string) {
		const text = typeof chunk === 'string' ? chunk : this.decoder.decode(chunk, { stream: true });
		let start = 0;
		for (let newline = text.indexOf('\n'); newline !== -1; newline = text.indexOf('\n', start)) {
			this.parse(this.take(text.slice(start, newline)));
			start = newline + 1;
		}
		if (start < text.length) this.hold(text.slice(start));
	}

	/** The stream ended: a last line without a newline still counts. */
	end() {
		const rest = this.decoder.decode();
		if (rest || this.pendingLength > 0) this.parse(this.take(rest));
	}

	private hold(piece: string) {
		this.pending.push(piece);
		this.pendingLength += piece.length;
		if (this.pendingLength > this.maxLineChars) this.check(this.pendingLength, this.pending);
	}

	/** The line that `last` ends, whole; nothing is held after. */
	private take(last: string) {
		if (this.pendingLength === 0) return last;
		this.hold(last);
		// Concatenation without copying: V8 keeps long joined strings as ropes.
		let line = '';
		for (const piece of this.pending) line += piece;
		this.pending = [];
		this.pendingLength = 0;
		return line;
	}

	/**
	 * Refuses a line past `maxLineChars` (default 16 Mi), but for the final result line (no event
	 * `{"tag":…`): it carries the answer twice, so may be longer by twice what came before it.
	 */
	private check(length: number, pieces: string[]) {
		const head = pieces
			.slice(0, 80)
			.map((piece) => piece.slice(0, 80))
			.join('')
			.slice(0, 80);
		if (!EVENT_LINE.test(head) && length <= this.maxLineChars + 2 * this.charsRead) return;
		const size = `${this.maxLineChars} characters (at least ${length} so far)`;
		const message = `Line ${this.lineCount + 1} of the stream is longer than ${size}`;
		throw new ReadFailure('oversize', `${message} and was refused rather than held in memory`);
	}

	private parse(line: string) {
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
	private malformed(line: string, error: unknown) {
		const reason = (error as Error).message.replace(PARSER_QUOTE, '');
		const preview = JSON.stringify(line.length > 80 ? `${line.slice(0, 80)}…` : line);
		const message = `Line ${this.lineCount} of the stream is not valid JSON (${reason}): ${preview}`;
		return new ReadFailure('malformed', message);
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
	deadline?: Deadline;
	cancelSignal?: AbortSignal;
}

/** Reads NDJSON from `source` (within the stream's bound, the deadline and Stop: readWithin)
 *  until the final value; `events` counts the values before it. */
export async function readNdjsonStream(source: Readable, options: NdjsonStreamOptions) {
	let events = 0;
	let final: { value: unknown } | undefined;
	const failure = (kind: ReadFailureKind, message: string) => {
		const arrived = `${events} event${events === 1 ? '' : 's'} had arrived`;
		return new ReadFailure(kind, `${message}; ${arrived}`, events);
	};
	const lines = new NdjsonLines((value) => {
		if (final) return;
		if (options.onValue(value) === true) final = { value };
		else events++;
	}, options.maxLineChars);
	const streamChars = STREAM_LINES * lines.maxLineChars;
	const chunks = readWithin(source, {
		maxBytes: streamChars,
		tooLarge: `The stream is longer than ${streamChars} characters in all and was refused rather than held in memory`,
		deadline: options.deadline,
		signal: options.cancelSignal,
		canceled: 'The run was canceled while its stream was being read',
		hangUp: options.stopSource,
	});
	// A bad line (a ReadFailure, which only the transport makes), or the caller's own error: its
	// callbacks run while a chunk (or a last line without a newline) is parsed, never while the
	// source is read.
	let parseError: unknown;
	try {
		for await (const chunk of chunks) {
			try {
				lines.push(chunk);
				options.onChunkRead?.();
			} catch (error) {
				parseError = error;
			}
			if (final || parseError) break;
		}
	} catch (error) {
		// The source failed: a bound, the deadline or Stop (readWithin hung up), or the network.
		// Its byte bound here is the whole stream's: 'overlong' (a line's is 'oversize').
		if (error instanceof ReadFailure)
			throw failure(error.kind === 'oversize' ? 'overlong' : error.kind, error.message);
		throw failure(
			'dropped',
			`The connection dropped before the final result line (${errorText(error)})`,
		);
	}
	try {
		if (!final && !parseError) lines.end();
	} catch (error) {
		parseError = error;
	}
	if (parseError) {
		// Hang up at once; a bad line is worded, the caller's own error passed on as it is.
		const reason =
			parseError instanceof ReadFailure ? failure(parseError.kind, parseError.message) : parseError;
		options.stopSource(reason as Error);
		throw reason;
	}
	if (!final) throw failure('incomplete', 'The stream ended without the final result line');
	return { final: final.value, events };
}
