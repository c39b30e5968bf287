/**
 * Keeping the API key out of what users read. A service (or a proxy) may quote the request back,
 * key included, in any form: raw in any case, JSON-escaped once or twice, `\u`-escaped,
 * URL-encoded (`%XX`, `%25XX`, `+`), wrapped over two lines, base64 (standard or URL-safe) alone
 * or inside a longer text ("Bearer key", "user:key"), or cut off at the end or before a `…`.
 * Quotes are redacted before they are cut; text holding no part of the key is never changed.
 */

const HIDDEN = '***';

/** Matched in any case and encoding, a shorter key would match ordinary words (base64: ≥ 15). */
export const MIN_KEY_CHARS = 12;

/** A key cut off shows at least this many of its first characters (at most half of them). */
const MAX_CUT_CHARS = 8;

/** The base64 characters made of `text`'s bytes alone, at each of 3 offsets; standard, URL-safe. */
function base64Cores(text: string): string[] {
	return [0, 1, 2].flatMap((offset) => {
		const bytes = Buffer.concat([Buffer.alloc(offset), Buffer.from(text)]);
		// Characters that also hold bits of the padding before, or of what follows, are left out.
		const first = Math.ceil((4 * offset) / 3);
		const end = Math.floor((4 * bytes.length) / 3);
		const core = bytes.toString('base64').slice(first, end);
		return [core, core.replace(/\+/g, '-').replace(/\//g, '_')];
	});
}

/** `text` JSON-escaped, as it is written inside a JSON string. */
const inQuotes = (text: string) => JSON.stringify(text).slice(1, -1);

/** One character as a service may write it: as is, JSON-, `\u`- or URL-encoded. */
function charPattern(char: string): string {
	const texts = [char, inQuotes(char), inQuotes(inQuotes(char))];
	const forms = new Set(texts.map((text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
	const units = char.split('').map((unit) => unit.charCodeAt(0).toString(16).padStart(4, '0'));
	forms.add(units.map((hex) => `\\\\{1,2}u${hex}`).join('')); // a surrogate pair as two
	forms.add(Buffer.from(char).toString('hex').replace(/../g, '%(?:25)?$&'));
	if (char === ' ') forms.add('\\+');
	return `(?:${[...forms].join('|')})`;
}

/** Where a text may be wrapped between two characters: a line break (raw or escaped) and indent. */
const WRAP = '(?:(?:\\r?\\n|(?:\\\\{1,2}r)?\\\\{1,2}n)[ \\t]*)?';

/**
 * For one key: its whole forms in one expression, longest first; for a key cut off, the key as
 * written in text (raw, JSON-escaped once and twice, lower-cased) and the fewest characters.
 */
type KeyFinder = { whole: RegExp; starts: string[]; cutChars: number };

/** One finder per key of the running executions (a process sees few keys). */
const finders = new Map<string, KeyFinder | undefined>();

function finderOf(apiKey: string): KeyFinder | undefined {
	if (finders.has(apiKey)) return finders.get(apiKey);
	if (finders.size > 100) finders.clear();
	const key = apiKey.trim();
	if (key.length < MIN_KEY_CHARS) {
		finders.set(apiKey, undefined); // too short to look for: nothing to build
		return undefined;
	}
	const once = inQuotes(key);
	const texts = [...new Set([key, once])];
	const forms = new Set([...texts, ...texts.flatMap(base64Cores)]);
	const formPattern = (form: string) => [...form].map(charPattern).join(WRAP);
	const patterns = [...forms].sort((a, b) => b.length - a.length).map(formPattern);
	const finder = {
		whole: new RegExp(patterns.join('|'), 'gi'),
		starts: [...new Set([inQuotes(once), ...texts])].map((t) => t.toLowerCase()),
		cutChars: Math.min(MAX_CUT_CHARS, Math.ceil(key.length / 2)),
	};
	finders.set(apiKey, finder);
	return finder;
}

/** `text` with the longest start of the key it ends with (at least cutChars, not whole) hidden. */
function hideCutKey(text: string, { starts, cutChars }: KeyFinder): string {
	const tail = text.slice(-starts[0].length).toLowerCase();
	let longest = 0;
	for (const start of starts) {
		let chars = Math.min(start.length - 1, tail.length);
		while (chars >= cutChars && chars > longest && !tail.endsWith(start.slice(0, chars))) chars--;
		if (chars >= cutChars && chars > longest) longest = chars;
	}
	return longest > 0 ? `${text.slice(0, -longest)}${HIDDEN}` : text;
}

function redactWith(text: string, finder: KeyFinder): string {
	const pieces = text.replace(finder.whole, HIDDEN).split('…');
	return pieces.map((piece) => hideCutKey(piece, finder)).join('…');
}

/** `text` with every form of the key, and a key cut off at its end or before a `…`, as `***`. */
export function redact(text: string, apiKey: string): string {
	const finder = finderOf(apiKey);
	return finder ? redactWith(text, finder) : text;
}

/** Whether `text` holds a whole form of the key: one scan spares walking a page without it. */
export function holdsKey(text: string, apiKey: string): boolean {
	const finder = finderOf(apiKey);
	return finder !== undefined && text.search(finder.whole) >= 0;
}

/** At most `max` characters of an answer's text, redacted before it is cut. */
export function quoteAnswer(text: string, apiKey: string, max: number): string {
	// A key form that starts before `max` ends in this window (16 characters a key character).
	const window = max + 16 * apiKey.length + 16;
	return redact(text.length > window ? text.slice(0, window) : text, apiKey).slice(0, max);
}

/**
 * A parsed answer with the key redacted from every string in it, field names too. Walked with a
 * list of pending values, not recursion, so that `[` × 1,000,000 cannot exhaust the stack.
 */
export function redactDeep(value: unknown, apiKey: string): unknown {
	const finder = finderOf(apiKey);
	if (!finder) return value;
	const holder: Record<string, unknown> = {};
	const pending: Array<[unknown, object, string | number]> = [[value, holder, 'value']];
	for (let next = pending.pop(); next; next = pending.pop()) {
		const [item, parent, field] = next;
		let copy = item;
		if (typeof item === 'string') copy = redactWith(item, finder);
		else if (Array.isArray(item)) {
			const list = new Array<unknown>(item.length);
			for (let i = 0; i < item.length; i++) pending.push([item[i], list, i]);
			copy = list;
		} else if (item !== null && typeof item === 'object') {
			// fromEntries: a "__proto__" field stays a field; fields keep their order, filled as taken.
			const fields = Object.entries(item).map(([name, inner]) => [redactWith(name, finder), inner]);
			const object = Object.fromEntries(fields.map(([name]) => [name, undefined]));
			for (const [name, inner] of fields) pending.push([inner, object, name as string]);
			copy = object;
		}
		(parent as Record<string | number, unknown>)[field] = copy;
	}
	return holder.value;
}
