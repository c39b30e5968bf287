/**
 * Bytes → lines → values: the line splitter of the NDJSON reader, with its line-size guard.
 * An event line is held until its newline and refused past `maxLineChars`; a long line that is
 * no event (the final result of a big run) is read as it arrives by LongLine.
 */
import { LongLine } from './longLine';

/** Longest line accepted, in characters (so at least this many bytes): 16 Mi. */
export const DEFAULT_MAX_LINE_CHARS = 16 * 1024 * 1024;

/** A line that is no event and longer than this is parsed as it arrives, not held whole. */
const LONG_LINE_CHARS = 256 * 1024;

const EVENT_LINE = /^\s*\{\s*"tag"\s*:/;

const BLANK = /^\s*$/;

/** A line problem found by NdjsonLines; the stream reader adds the event count. */
/** The piece of the input V8's JSON.parse message quotes: `, ..."abc"... is not valid JSON`. */
const PARSER_QUOTE = /,\s*(?:\.\.\.)?"[\s\S]*"(?:\.\.\.)?\s+is not valid JSON$/;

export class LineFault extends Error {
	constructor(
		readonly kind: 'malformed' | 'oversize',
		readonly detail: string,
	) {
		super(detail);
	}
}

/**
 * Splits chunks into lines and parses each. Lines and multi-byte UTF-8 characters may be split
 * across chunks: the TextDecoder in stream mode keeps partial characters, and a partial line is
 * kept as pieces (joined once, when its newline arrives) up to `maxLineChars`.
 */
export class NdjsonLines {
	private readonly decoder = new TextDecoder('utf-8');

	/** The current line's pieces (until it turns out long: then `long` reads it). */
	private pending: string[] = [];

	/** Characters of the current line so far. */
	private pendingLength = 0;

	private long?: LongLine;

	/** The start of the current long line, for an error message. */
	private longHead = '';

	/** Lines seen so far, blank ones included: the number of the next line is `lineNumber + 1`. */
	lineNumber = 0;

	/** Characters of the lines read so far. */
	private charsRead = 0;

	/**
	 * `knownText`: the text streamed so far, in parts. A long string of a long line that equals
	 * it is returned as that text rather than held a second time.
	 */
	constructor(
		private readonly onValue: (value: unknown) => void,
		private readonly maxLineChars = DEFAULT_MAX_LINE_CHARS,
		private readonly knownText?: () => readonly string[],
	) {}

	push(chunk: Uint8Array | string): void {
		const text = typeof chunk === 'string' ? chunk : this.decoder.decode(chunk, { stream: true });
		let start = 0;
		for (let newline = text.indexOf('\n'); newline !== -1; newline = text.indexOf('\n', start)) {
			if (this.pendingLength === 0 && newline - start <= LONG_LINE_CHARS) {
				this.parse(text.slice(start, newline));
			} else {
				this.hold(text.slice(start, newline));
				this.endLine();
			}
			start = newline + 1;
		}
		if (start < text.length) this.hold(start === 0 ? text : text.slice(start));
	}

	/** The stream ended: a last line without a newline still counts. */
	end(): void {
		const rest = this.decoder.decode();
		if (rest) this.hold(rest);
		if (this.pendingLength > 0) this.endLine();
	}

	private hold(part: string): void {
		if (part.length === 0) return;
		this.pendingLength += part.length;
		if (this.long) {
			if (this.pendingLength > this.maxLineChars) this.check(this.pendingLength, false);
			this.writeLong(part);
			return;
		}
		this.pending.push(part);
		const length = this.pendingLength;
		if (length <= LONG_LINE_CHARS && length <= this.maxLineChars) return;
		const head = this.head();
		const isEvent = EVENT_LINE.test(head);
		if (length > this.maxLineChars) this.check(length, isEvent);
		if (isEvent || length <= LONG_LINE_CHARS) return;
		this.long = new LongLine(this.knownText);
		this.longHead = head;
		const pieces = this.pending;
		this.pending = [];
		for (const piece of pieces) this.writeLong(piece);
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

	private endLine(): void {
		const long = this.long;
		if (!long) {
			const line = this.pending.length === 1 ? this.pending[0] : this.pending.join('');
			this.reset();
			this.parse(line);
			return;
		}
		this.lineNumber++;
		this.charsRead += this.pendingLength;
		this.reset();
		let value: unknown;
		try {
			value = long.end();
		} catch (error) {
			throw this.malformed(error, this.longHead);
		}
		this.onValue(value);
	}

	private writeLong(piece: string): void {
		try {
			this.long!.write(piece);
		} catch (error) {
			this.lineNumber++;
			const head = this.longHead;
			this.reset();
			throw this.malformed(error, head);
		}
	}

	private reset(): void {
		this.pending = [];
		this.pendingLength = 0;
		this.long = undefined;
	}

	/**
	 * A line over the limit. An event line (`{"tag":…`) is refused. The final result line carries
	 * the answer twice (text_output and aiMessage.content), so it may be longer by twice what the
	 * stream sent before it: a runaway line is still refused, a large answer is not.
	 */
	private check(length: number, isEvent: boolean): void {
		if (!isEvent && length <= this.maxLineChars + 2 * this.charsRead) return;
		this.reset();
		const limit = this.maxLineChars;
		throw new LineFault(
			'oversize',
			`Line ${this.lineNumber + 1} of the stream is longer than ${limit} characters (at least ${length} so far) and was refused rather than held in memory`,
		);
	}

	private parse(line: string): void {
		if (line.length > this.maxLineChars) {
			this.check(line.length, EVENT_LINE.test(line.slice(0, 80)));
		}
		this.lineNumber++;
		this.charsRead += line.length;
		// A blank line costs only reading it: no parse, no caught exception.
		if (BLANK.test(line)) return;
		let value: unknown;
		try {
			value = JSON.parse(line);
		} catch (error) {
			throw this.malformed(error, line);
		}
		this.onValue(value);
	}

	/** The current line (already counted) is not valid JSON. */
	private malformed(error: unknown, line: string): LineFault {
		const preview = line.length > 80 ? `${line.slice(0, 80)}…` : line;
		// V8 quotes a piece of the line in its message, cut where no redaction can see a key:
		// the preview says the same, whole enough to be redacted.
		const reason = (error as Error).message.replace(PARSER_QUOTE, '');
		return new LineFault(
			'malformed',
			`Line ${this.lineNumber} of the stream is not valid JSON (${reason}): ${JSON.stringify(preview)}`,
		);
	}
}
