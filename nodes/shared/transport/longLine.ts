/**
 * A long NDJSON line (the final result of a big run) read as it arrives, without holding it
 * whole. The final result repeats the answer (text_output and aiMessage.content): held whole
 * and parsed, a line costs three times the text on top of the tokens already collected. Here
 * only the JSON around long strings is kept; each long string is decoded piece by piece and
 * compared with the text already streamed, so a string equal to it (or to its start) is that
 * same text, not a copy. A long string that differs is kept, as the value it is.
 */

/** Strings whose raw JSON is longer than this are read piece by piece. */
const LONG_STRING_CHARS = 4096;

/** A backslash starts an escape; JSON.parse refuses control characters. */
const NEEDS_DECODING = /[\\\p{Cc}]/u;

/** Decodes the inside of a JSON string literal (complete escapes only). */
function decode(raw: string): string {
	return NEEDS_DECODING.test(raw) ? (JSON.parse(`"${raw}"`) as string) : raw;
}

/** Where `raw` (inside a string) can be cut without splitting an escape sequence. */
function safeCut(raw: string): number {
	const last = raw.lastIndexOf('\\');
	if (last === -1) return raw.length;
	let run = 1;
	while (last - run >= 0 && raw.charCodeAt(last - run) === 92) run++;
	// An even run of backslashes is escaped backslashes; an odd one ends in an escape's start.
	if (run % 2 === 0) return raw.length;
	const complete = raw[last + 1] === 'u' ? last + 6 <= raw.length : last + 2 <= raw.length;
	return complete ? raw.length : last;
}

/** Concatenation without copying: V8 keeps long joined strings as ropes. */
export function rope(parts: readonly string[]): string {
	let text = '';
	for (const part of parts) text += part;
	return text;
}

/** One long string value: decoded pieces compared with the known text while they match it. */
class LongString {
	private carry = '';

	private part = 0;

	private offset = 0;

	/** The value's pieces once it stopped matching the known text (the matched start first). */
	private held?: string[];

	constructor(private readonly known: readonly string[]) {
		if (known.length === 0) this.held = [];
	}

	/** Raw JSON string content (without quotes) as it arrives. */
	write(raw: string): void {
		const text = this.carry + raw;
		const cut = safeCut(text);
		this.carry = cut === text.length ? '' : text.slice(cut);
		this.add(decode(cut === text.length ? text : text.slice(0, cut)));
	}

	/** The string closed: its value. */
	end(): string {
		if (this.carry) this.add(decode(this.carry));
		return this.held ? rope(this.held) : this.matched();
	}

	private add(piece: string): void {
		if (this.held) {
			if (piece) this.held.push(piece);
			return;
		}
		let at = 0;
		while (at < piece.length) {
			const part = this.known[this.part];
			if (part === undefined) break;
			const length = Math.min(part.length - this.offset, piece.length - at);
			const compared = length === piece.length ? piece : piece.slice(at, at + length);
			if (!part.startsWith(compared, this.offset)) break;
			at += length;
			this.offset += length;
			if (this.offset === part.length) {
				this.part++;
				this.offset = 0;
			}
		}
		if (at < piece.length) this.held = [this.matched(), piece.slice(at)];
	}

	/** The known text up to where it matched. */
	private matched(): string {
		const whole = this.known.slice(0, this.part);
		if (this.offset > 0) whole.push(this.known[this.part].slice(0, this.offset));
		return rope(whole);
	}
}

/**
 * One line fed in pieces (`write`), parsed at its end (`end`). Outside strings the JSON text is
 * kept as it is; a string that grows long is replaced by a placeholder, restored after parsing.
 */
export class LongLine {
	private readonly json: string[] = [];

	private inString = false;

	/** The string being read ends in an odd run of backslashes (its next character is escaped). */
	private escaped = false;

	private short: string[] = [];

	private shortLength = 0;

	private long?: LongString;

	private readonly strings: string[] = [];

	private readonly marker = `\u0000ndjson-long-string:${Math.random().toString(36).slice(2)}:`;

	/** `known`: the text streamed so far, in parts (asked for when a long string starts). */
	constructor(private readonly known?: () => readonly string[]) {}

	write(text: string): void {
		let at = 0;
		while (at < text.length) {
			if (!this.inString) {
				const quote = text.indexOf('"', at);
				if (quote === -1) {
					this.json.push(at === 0 ? text : text.slice(at));
					return;
				}
				this.json.push(text.slice(at, quote + 1));
				this.inString = true;
				at = quote + 1;
				continue;
			}
			const close = this.closingQuote(text, at);
			this.content(close === -1 ? text.slice(at) : text.slice(at, close));
			if (close === -1) return;
			this.closeString();
			at = close + 1;
		}
	}

	/** The parsed value of the whole line. */
	end(): unknown {
		if (this.inString) throw new SyntaxError('Unterminated string in JSON at end of line');
		const strings = this.strings;
		const marker = this.marker;
		const restore = (value: string) =>
			value.startsWith(marker) ? strings[Number(value.slice(marker.length))] : value;
		return JSON.parse(this.json.join(''), (_key, value: unknown) => {
			if (typeof value === 'string') return restore(value);
			if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
			// A long string used as a key (allowed in JSON): rebuild the object with it restored.
			const keys = Object.keys(value);
			if (!keys.some((key) => key.startsWith(marker))) return value;
			const rebuilt = {};
			for (const key of keys) {
				const property = (value as Record<string, unknown>)[key];
				Object.defineProperty(rebuilt, restore(key), {
					value: property,
					enumerable: true,
					writable: true,
					configurable: true,
				});
			}
			return rebuilt;
		});
	}

	/** The closing quote of the current string in `text` from `from`, or -1; tracks escapes. */
	private closingQuote(text: string, from: number): number {
		let search = from;
		for (;;) {
			const quote = text.indexOf('"', search);
			const end = quote === -1 ? text.length : quote;
			let run = 0;
			while (end - run - 1 >= from && text.charCodeAt(end - run - 1) === 92) run++;
			const odd = (run % 2 === 1) !== (end - run === from && this.escaped);
			if (quote === -1) {
				this.escaped = odd;
				return -1;
			}
			if (!odd) {
				this.escaped = false;
				return quote;
			}
			search = quote + 1;
		}
	}

	private content(raw: string): void {
		if (raw.length === 0) return;
		if (this.long) {
			this.long.write(raw);
			return;
		}
		this.short.push(raw);
		this.shortLength += raw.length;
		if (this.shortLength <= LONG_STRING_CHARS) return;
		this.long = new LongString(this.known?.() ?? []);
		for (const part of this.short) this.long.write(part);
		this.short = [];
		this.shortLength = 0;
	}

	private closeString(): void {
		this.inString = false;
		if (this.long) {
			this.json.push(`\\u0000${this.marker.slice(1)}${this.strings.length}"`);
			this.strings.push(this.long.end());
			this.long = undefined;
			return;
		}
		this.json.push(...this.short, '"');
		this.short = [];
		this.shortLength = 0;
	}
}
