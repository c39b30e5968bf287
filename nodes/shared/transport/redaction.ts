/**
 * Keeping the API key out of what users read. A service (or a proxy before it) may quote the
 * request back, the key included, in any form a server or proxy produces: raw, JSON-escaped
 * (once or twice), `\u`-escaped, URL-encoded (`%2B` or `+`), upper- or lower-cased, wrapped
 * over two lines, base64-encoded alone or inside a longer text ("Bearer key", "user:key"), or
 * cut off where a message was shortened. Every quote of an answer goes through here, redacted
 * before it is cut. Text that holds no part of the key is never changed.
 */

const HIDDEN = '***';

/**
 * The shortest key that is looked for. Redaction matches case-insensitively and in encoded
 * forms, so a short key would also match ordinary words ("The *** key…" for a 4-character
 * key): at 12 characters no English word or number is likely to match, and the shortest
 * base64 form looked for (see base64Cores) is still 15 characters long.
 */
export const MIN_KEY_CHARS = 12;

/**
 * A text that ends with at least this many of the key's first characters (or holds them
 * before a `…`) is taken as a key cut off there. Fewer give little away, and an ordinary word
 * that happens to start the key ("project" of "project_…") is left as it is. Never more than
 * half the key, so that a cut key shows less than half of itself.
 */
const MAX_CUT_CHARS = 8;

/**
 * What base64 shows of `text` inside any longer text: the text can start at any of 3 byte
 * offsets of a 3-byte group, and only the characters made of its bytes alone are fixed (the
 * first and last one or two also hold bits of the bytes around it). Standard and URL-safe.
 */
function base64Cores(text: string): string[] {
	const bytes = Buffer.from(text);
	const cores: string[] = [];
	for (let offset = 0; offset < 3; offset++) {
		const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString('base64');
		const first = Math.ceil((8 * offset) / 6);
		const end = Math.floor((8 * (offset + bytes.length)) / 6);
		const core = encoded.slice(first, end);
		cores.push(core, core.replace(/\+/g, '-').replace(/\//g, '_'));
	}
	return cores;
}

function escapeForRegExp(text: string): string {
	return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** One character as a service may write it: as is (any case), JSON-, `\u`- or URL-encoded. */
function charPattern(char: string): string {
	const forms = new Set<string>([escapeForRegExp(char)]);
	const json = JSON.stringify(char).slice(1, -1);
	if (json !== char) {
		forms.add(escapeForRegExp(json));
		forms.add(escapeForRegExp(JSON.stringify(json).slice(1, -1)));
	}
	const code = char.codePointAt(0) ?? 0;
	if (code < 0x10000) forms.add(`\\\\{1,2}u${code.toString(16).padStart(4, '0')}`);
	for (const byte of Buffer.from(char)) {
		const hex = byte.toString(16).padStart(2, '0');
		forms.add(`%(?:25)?${hex}`);
	}
	if (char === ' ') forms.add('\\+');
	return forms.size === 1 ? [...forms][0] : `(?:${[...forms].join('|')})`;
}

/** Where a text may be wrapped between two characters: a line break (raw or escaped) and indent. */
const WRAP = '(?:(?:\\r?\\n|(?:\\\\{1,2}r)?\\\\{1,2}n)[ \\t]*)?';

function formPattern(form: string): string {
	return [...form].map(charPattern).join(WRAP);
}

/** Everything redaction looks for, for one key; undefined for a key too short to look for. */
interface KeyFinder {
	/** Every whole form of the key (see the file's comment), in one expression. */
	whole: RegExp;
	/** The key as written in text, lower-cased, for a key cut off at the end of a text. */
	starts: string[];
	cutChars: number;
}

const finders = new Map<string, KeyFinder | undefined>();

function finderOf(apiKey: string): KeyFinder | undefined {
	if (finders.has(apiKey)) return finders.get(apiKey);
	let finder: KeyFinder | undefined;
	const key = apiKey.trim();
	if (key.length >= MIN_KEY_CHARS) {
		const once = JSON.stringify(key).slice(1, -1);
		const texts = [...new Set([key, once])];
		const forms = [...texts, ...texts.flatMap(base64Cores)].sort((a, b) => b.length - a.length);
		finder = {
			whole: new RegExp([...new Set(forms)].map(formPattern).join('|'), 'gi'),
			// Longest first (cutKeyAtEnd reads as many characters as the first one has).
			starts: [...new Set([JSON.stringify(once).slice(1, -1), ...texts])].map((t) =>
				t.toLowerCase(),
			),
			cutChars: Math.min(MAX_CUT_CHARS, Math.ceil(key.length / 2)),
		};
	}
	// One finder per key of the running executions; a process sees few keys.
	if (finders.size > 100) finders.clear();
	finders.set(apiKey, finder);
	return finder;
}

/** The length of the longest start (≥ cutChars) of the key that `text` ends with. */
function cutKeyAtEnd(text: string, finder: KeyFinder): number {
	const tail = text.slice(-finder.starts[0].length).toLowerCase();
	let longest = 0;
	for (const start of finder.starts) {
		for (let chars = Math.min(start.length - 1, tail.length); chars >= finder.cutChars; chars--) {
			if (chars > longest && tail.endsWith(start.slice(0, chars))) longest = chars;
		}
	}
	return longest;
}

function redactWith(text: string, finder: KeyFinder): string {
	const out = text.replace(finder.whole, HIDDEN);
	const pieces = out.split('…');
	for (let i = 0; i < pieces.length; i++) {
		const cut = cutKeyAtEnd(pieces[i], finder);
		if (cut > 0) pieces[i] = `${pieces[i].slice(0, -cut)}${HIDDEN}`;
	}
	return pieces.join('…');
}

/**
 * `text` with every form of the key replaced by `***`, and a key cut off at the end of the text
 * or before a `…` (where a quote was shortened) too.
 */
export function redact(text: string, apiKey: string): string {
	const finder = finderOf(apiKey);
	return finder ? redactWith(text, finder) : text;
}

/**
 * Whether `text` holds a whole form of the key. One scan of an answer's text (about a quarter of
 * what parsing it costs) spares walking every record of a page that holds no key.
 */
export function holdsKey(text: string, apiKey: string): boolean {
	const finder = finderOf(apiKey);
	if (!finder) return false;
	finder.whole.lastIndex = 0;
	return finder.whole.test(text);
}

/** At most `max` characters of an answer's text, redacted before it is cut. */
export function quoteAnswer(text: string, apiKey: string, max: number): string {
	// Any key form that starts within the first `max` characters ends within this window
	// (the longest form: every character \\u-escaped twice with a line break after it).
	const window = max + 16 * apiKey.length + 16;
	const redacted = redact(text.length > window ? text.slice(0, window) : text, apiKey);
	return redacted.length > max ? redacted.slice(0, max) : redacted;
}

/**
 * A parsed answer with the key redacted from every string in it (keys of objects too), at any
 * depth: walked with a list of pending values, not by recursion, so that a deeply nested answer
 * (`[` × 1,000,000) cannot exhaust the call stack.
 */
export function redactDeep(value: unknown, apiKey: string): unknown {
	const finder = finderOf(apiKey);
	if (!finder) return value;
	const holder: Record<string, unknown> = { value: undefined };
	const pending: Array<[unknown, Record<string, unknown> | unknown[], string | number]> = [
		[value, holder, 'value'],
	];
	for (let next = pending.pop(); next; next = pending.pop()) {
		const [item, parent, field] = next;
		let copy: unknown = item;
		if (typeof item === 'string') copy = redactWith(item, finder);
		else if (Array.isArray(item)) {
			const list = new Array<unknown>(item.length);
			for (let i = 0; i < item.length; i++) pending.push([item[i], list, i]);
			copy = list;
		} else if (item !== null && typeof item === 'object') {
			const object: Record<string, unknown> = {};
			for (const [name, inner] of Object.entries(item)) {
				const cleanName = redactWith(name, finder);
				// defineProperty: a "__proto__" field stays a field, not the copy's prototype;
				// defined now, in the original order, and filled when its value is taken.
				Object.defineProperty(object, cleanName, {
					value: undefined,
					enumerable: true,
					writable: true,
					configurable: true,
				});
				pending.push([inner, object, cleanName]);
			}
			copy = object;
		}
		(parent as Record<string | number, unknown>)[field] = copy;
	}
	return holder.value;
}
