/**
 * Keeping the API key out of what users read. A service (or a proxy) may quote the request back,
 * key included, in any form: raw in any case, JSON-escaped once or twice, `\u`-escaped,
 * URL-encoded (`%XX`, `%25XX`, `+`), wrapped over two lines, base64 (standard or URL-safe) alone
 * or inside a longer text ("Bearer key", "user:key"), cut off at the end or before a `…`, or a
 * long enough start of it anywhere (a record that stored a cut-off key).
 *
 * A text is read once, as units: each character as a service may have written it, decoded and
 * upper-cased, blanks (spaces, `+`, tabs, line breaks) left out. The key's forms are found among
 * the units with indexOf and KMP (no pattern is built from the key): time linear in the text and
 * memory bounded by a chunk of units, whatever the key's length. Text holding no part of the key
 * is returned as it is; a parsed answer is copied only on the way to a change.
 */

import { knownApiKey, MIN_KEY_CHARS, type BotDojoContext } from './project';

/** A key cut off at a text's end shows at least this many of its first characters (at most
 *  half of them); anywhere else, at least MIN_START_CHARS and half the key. */
const MAX_CUT_CHARS = 8;
const MIN_START_CHARS = 16;

/** Units decoded at a time: the memory a scan holds besides the text, whatever its size. */
const CHUNK_UNITS = 1 << 16;

/** One form of the key as units; `start` the fewest units found anywhere (its first ones);
 *  `cutChars` the fewest found at a text's end (0: not looked for there); KMP's `fallback`. */
type Form = { units: string; start: string; cutChars: number; fallback: Int32Array };
type Finder = { forms: Form[]; longest: number; fewest: number };

/** The unit a character counts as: upper-cased (ASCII); 0, none, for a space, a `+` (a space
 *  URL-encoded), a tab or a line break: a wrap, an indent, "Bearer key". */
function unitOf(code: number) {
	if (code >= 97 && code <= 122) return code - 32;
	return code === 32 || code === 43 || code === 9 || code === 10 || code === 13 ? 0 : code;
}

function hexAt(text: string, at: number, digits: number) {
	let value = 0;
	for (let i = 0; i < digits; i++) {
		const code = text.charCodeAt(at + i) | 32;
		const digit = code >= 48 && code <= 57 ? code - 48 : code >= 97 && code <= 102 ? code - 87 : -1;
		if (digit < 0) return -1;
		value = value * 16 + digit;
	}
	return value;
}

/** The length read by the last readUnit (one scan at a time: the code is synchronous). */
let unitLength = 1;

/**
 * The character that `text` at `at` stands for, its length in `unitLength`. Decodes `%XX` and
 * `%25XX`, `\uXXXX` and `\\uXXXX`, `\"`, `\\`, `\/` escaped once or twice; `\n`, `\r`, `\t`
 * (once or twice) stand for a blank, 0.
 */
function readUnit(text: string, at: number) {
	const code = text.charCodeAt(at);
	unitLength = 1;
	if (code === 37) {
		const twice = text.startsWith('25', at + 1) ? hexAt(text, at + 3, 2) : -1;
		const once = twice < 0 ? hexAt(text, at + 1, 2) : -1;
		if (twice >= 0 || once >= 0) unitLength = twice >= 0 ? 5 : 3;
		return twice >= 0 ? twice : once >= 0 ? once : code;
	}
	if (code !== 92) return code;
	if (text.startsWith('\\\\\\', at)) {
		const last = text.charCodeAt(at + 3);
		if (last === 92 || last === 34) return ((unitLength = 4), last);
	}
	const slashes = text.charCodeAt(at + 1) === 92 ? 2 : 1;
	const next = text.charCodeAt(at + slashes);
	const escaped = next === 117 ? hexAt(text, at + slashes + 1, 4) : -1;
	if (escaped >= 0) return ((unitLength = slashes + 5), escaped);
	if (next === 110 || next === 114 || next === 116) return ((unitLength = slashes + 1), 0);
	if (slashes === 2) return ((unitLength = 2), 92);
	if (next === 34 || next === 47) return ((unitLength = 2), next);
	return code;
}

/** `text` as units: decoded, or each character as it is (`literal`). */
function unitsOf(text: string, literal: boolean) {
	const codes: number[] = [];
	for (let at = 0; at < text.length; at += literal ? 1 : unitLength) {
		const unit = unitOf(literal ? text.charCodeAt(at) : readUnit(text, at));
		if (unit !== 0) codes.push(unit);
	}
	return String.fromCharCode(...codes);
}

/** The base64 characters made of `text`'s bytes alone, at each of 3 offsets; standard, URL-safe. */
function base64Cores(text: string) {
	return [0, 1, 2].flatMap((offset) => {
		const bytes = Buffer.concat([Buffer.alloc(offset), Buffer.from(text)]);
		// Characters that also hold bits of the padding before, or of what follows, are left out.
		const first = Math.ceil((4 * offset) / 3);
		const end = Math.floor((4 * bytes.length) / 3);
		const core = bytes.toString('base64').slice(first, end);
		return [core, core.replace(/\+/g, '-').replace(/\//g, '_')];
	});
}

/** KMP's table: for each length of a start of `units`, the longest start that also ends it. */
function fallbackOf(units: string) {
	const fallback = new Int32Array(units.length);
	for (let at = 1, length = 0; at < units.length; at++) {
		while (length > 0 && units[at] !== units[length]) length = fallback[length - 1];
		if (units[at] === units[length]) length++;
		fallback[at] = length;
	}
	return fallback;
}

function formOf(units: string, cutChars: number) {
	const startChars = Math.min(units.length, Math.max(MIN_START_CHARS, Math.ceil(units.length / 2)));
	return { units, start: units.slice(0, startChars), cutChars, fallback: fallbackOf(units) };
}

/** One finder per key of the running executions (a process sees few keys). */
const finders = new Map<string, Finder | undefined>();

function finderOf(apiKey: string) {
	if (finders.has(apiKey)) return finders.get(apiKey);
	if (finders.size > 100) finders.clear();
	const key = apiKey.trim();
	let finder: Finder | undefined;
	// A shorter key would match ordinary words; the credential refuses it (keyLengthProblem).
	if (key.length >= MIN_KEY_CHARS) {
		const cutChars = Math.min(MAX_CUT_CHARS, Math.ceil(key.length / 2));
		// The key as text holds it raw (decoded like the text), or encoded (each character as it
		// is); its UTF-8 bytes for `%XX` of each byte; base64 of it, raw or JSON-escaped.
		const bytes = Buffer.from(key).toString('latin1');
		const quoted = JSON.stringify(key).slice(1, -1);
		const cut = new Set([unitsOf(key, false), unitsOf(key, true), unitsOf(bytes, true)]);
		const cores = new Set(
			[...base64Cores(key), ...base64Cores(quoted)].map((core) => unitsOf(core, true)),
		);
		const forms = [...cut].map((units) => formOf(units, cutChars));
		for (const units of cores) if (!cut.has(units)) forms.push(formOf(units, 0));
		const longest = Math.max(...forms.map((form) => form.units.length));
		finder = { forms, longest, fewest: cutChars };
	}
	finders.set(apiKey, finder);
	return finder;
}

/** The scan's buffers, kept between scans: units, and where each starts and ends in the text. */
let codes = new Uint16Array(0);
let starts = new Int32Array(0);
let ends = new Int32Array(0);

function unitText(count: number) {
	let text = '';
	for (let at = 0; at < count; at += 8192) {
		text += String.fromCharCode.apply(
			null,
			codes.subarray(at, Math.min(count, at + 8192)) as never,
		);
	}
	return text;
}

/** KMP: the longest start of `form` that ends at `at` (inclusive), from `length` before it. */
function step(form: Form, length: number, code: number) {
	const { units, fallback } = form;
	while (length > 0 && units.charCodeAt(length) !== code) length = fallback[length - 1];
	return units.charCodeAt(length) === code ? length + 1 : length;
}

/** Where `text` holds the key: [start, end) pairs, in no order, possibly overlapping. */
function keySpans(text: string, { forms, longest }: Finder) {
	const spans: number[] = [];
	const size = Math.max(CHUNK_UNITS, 4 * longest);
	if (codes.length < size) {
		codes = new Uint16Array(size);
		starts = new Int32Array(size);
		ends = new Int32Array(size);
	}
	let count = 0; // units in the buffers
	let kept = 0; // of them, kept from the chunk before: a form that began there may end here
	for (let at = 0; ; ) {
		while (count < size && at < text.length) {
			const unit = unitOf(readUnit(text, at));
			if (unit !== 0) {
				codes[count] = unit;
				starts[count] = at;
				ends[count++] = at + unitLength;
			}
			at += unitLength;
		}
		const last = at >= text.length;
		const units = unitText(count);
		for (const form of forms) findForm(form, units, spans);
		// A key cut off: at the text's end, or before a `…` (the kept units were looked at before).
		const cuts = last ? [count] : [];
		for (let dots = units.indexOf('…', kept); dots >= 0; dots = units.indexOf('…', dots + 1)) {
			cuts.push(dots);
		}
		for (const cut of cuts) {
			for (const form of forms) if (form.cutChars > 0) findCut(form, units, cut, spans);
		}
		if (last) break;
		kept = Math.min(count, longest);
		codes.copyWithin(0, count - kept, count);
		starts.copyWithin(0, count - kept, count);
		ends.copyWithin(0, count - kept, count);
		count = kept;
	}
	return spans;
}

/** Every place that holds at least `form.start`, each as long as it matches the form. */
function findForm(form: Form, units: string, spans: number[]) {
	for (let hit = units.indexOf(form.start); hit >= 0; ) {
		let length = 0;
		let at = hit;
		for (; at < units.length; at++) {
			length = step(form, length, units.charCodeAt(at));
			if (length >= form.start.length) spans.push(starts[at - length + 1], ends[at]);
			if (length === 0) break;
		}
		hit = at + 1 < units.length ? units.indexOf(form.start, at + 1) : -1;
	}
}

/** The longest start of `form` (cutChars of text at least, not whole) that ends before `cut`. */
function findCut(form: Form, units: string, cut: number, spans: number[]) {
	let length = 0;
	for (let at = Math.max(0, cut - form.units.length + 1); at < cut; at++) {
		length = step(form, length, units.charCodeAt(at));
	}
	// Counted in the text's characters, as a reader sees them (`\"` is two).
	if (length > 0 && ends[cut - 1] - starts[cut - length] >= form.cutChars) {
		spans.push(starts[cut - length], ends[cut - 1]);
	}
}

function redactWith(text: string, finder: Finder) {
	if (text.length < finder.fewest) return text;
	const spans = keySpans(text, finder);
	if (spans.length === 0) return text;
	const order = Array.from({ length: spans.length / 2 }, (_, at) => at * 2);
	order.sort((a, b) => spans[a] - spans[b]);
	let out = '';
	let shown = -1; // the text up to here is in `out`
	for (const at of order) {
		if (spans[at + 1] <= shown) continue;
		if (spans[at] > shown) out += `${text.slice(Math.max(0, shown), spans[at])}***`;
		shown = spans[at + 1];
	}
	return out + text.slice(shown);
}

/** `text` with every form of the key, and a key cut off at its end or before a `…`, as `***`. */
export function redact(text: string, apiKey: string) {
	const finder = finderOf(apiKey);
	return finder ? redactWith(text, finder) : text;
}

/** At most `max` characters of an answer's text, redacted before it is cut. */
export function quoteAnswer(text: string, apiKey: string, max: number) {
	// A key form that starts before `max` ends in this window (16 characters a key character).
	const window = max + 16 * apiKey.length + 16;
	return redact(text.length > window ? text.slice(0, window) : text, apiKey).slice(0, max);
}

/** An array or object being walked: its fields' names, the next one, the values that changed. */
type Walked = { value: object; names?: string[]; next: number; changed?: Map<number, unknown> };

/**
 * `value` with the key redacted from every string in it, field names too. Nothing is copied but
 * the arrays and objects on the way to a change: the rest is returned as it is (the same
 * objects). Walked with a list of pending values, not recursion, so that `[` × 1,000,000 cannot
 * exhaust the stack.
 */
export function redactDeep<T>(value: T, apiKey: string): T {
	const finder = finderOf(apiKey);
	if (!finder) return value;
	if (typeof value === 'string') return redactWith(value, finder) as T;
	if (!isData(value)) return value;
	// An object inside itself (a cycle) is left as it is: nothing ends the walk otherwise.
	const onPath = new Set<object>();
	const walk = (inner: object): Walked => {
		onPath.add(inner);
		return { value: inner, names: Array.isArray(inner) ? undefined : Object.keys(inner), next: 0 };
	};
	const pending: Walked[] = [walk(value)];
	for (;;) {
		const top = pending[pending.length - 1];
		if (top.next < (top.names ?? (top.value as unknown[])).length) {
			const at = top.next++;
			const field = top.names ? top.names[at] : at;
			const inner = (top.value as Record<string | number, unknown>)[field];
			if (isData(inner) && !onPath.has(inner)) pending.push(walk(inner));
			else if (typeof inner === 'string') {
				const redacted = redactWith(inner, finder);
				if (redacted !== inner) (top.changed ??= new Map()).set(at, redacted);
			}
			continue;
		}
		pending.pop();
		onPath.delete(top.value);
		const done = copyIfChanged(top, finder);
		if (pending.length === 0) return done as T;
		const parent = pending[pending.length - 1];
		if (done !== top.value) (parent.changed ??= new Map()).set(parent.next - 1, done);
	}
}

/** An array or a plain object (JSON's data): class instances (a Buffer, a socket) are not walked. */
function isData(value: unknown): value is object {
	if (value === null || typeof value !== 'object') return false;
	const prototype = Object.getPrototypeOf(value) as unknown;
	return Array.isArray(value) || prototype === Object.prototype || prototype === null;
}

/** The walked array or object, or a copy of it with its changed values and field names. */
function copyIfChanged({ value, names, changed }: Walked, finder: Finder) {
	if (!names) {
		if (!changed) return value;
		const copy = (value as unknown[]).slice();
		for (const [at, inner] of changed) copy[at] = inner;
		return copy;
	}
	const shown = names.map((name) => redactWith(name, finder));
	if (!changed && shown.every((name, at) => name === names[at])) return value;
	const fields = value as Record<string, unknown>;
	// fromEntries: a "__proto__" field stays a field; fields keep their order.
	return Object.fromEntries(
		names.map((name, at) => [shown[at], changed?.has(at) ? changed.get(at) : fields[name]]),
	);
}

/**
 * What leaves the node, with the execution's key redacted: output items (their fields), an error
 * (each of its fields: message, stack, description, the answer it quotes, its cause), or a log
 * line. Items and errors are redacted in place: the node made them, and n8n shows, saves and logs
 * them next.
 */
export function withoutKey<T>(ctx: BotDojoContext, outgoing: T): T {
	const apiKey = knownApiKey(ctx);
	if (typeof outgoing === 'string') return redact(outgoing, apiKey) as T;
	if (!Array.isArray(outgoing)) return redactError(outgoing, apiKey);
	for (const item of outgoing as Array<{ json: object }>) item.json = redactDeep(item.json, apiKey);
	return outgoing;
}

/** The error's fields redacted in place; its `node` (parameters, which hold no key) is not walked. */
function redactError<T>(error: T, apiKey: string, depth = 0): T {
	if (!finderOf(apiKey) || error === null || typeof error !== 'object' || depth > 8) return error;
	const fields = error as Record<string, unknown>;
	for (const name of Object.getOwnPropertyNames(error)) {
		const value = fields[name];
		if (name === 'node' || value === null || value === undefined) continue;
		const redacted =
			value instanceof Error ? redactError(value, apiKey, depth + 1) : redactDeep(value, apiKey);
		if (redacted !== value) fields[name] = redacted;
	}
	return error;
}
