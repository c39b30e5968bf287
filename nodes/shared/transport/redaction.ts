/**
 * Keeping the API key out of what users read. A service (or a proxy before it) may quote the
 * request back, the key included: raw, JSON-escaped (once or twice: a key with `"` or `\`
 * changes when its text is put in JSON), or cut off where a message was shortened. Every
 * quote of an answer goes through here, redacted before it is cut.
 */

const HIDDEN = '***';
/** Shorter keys are not looked for: redacting every "ab" would garble messages. */
const MIN_KEY_CHARS = 4;
/** The shortest key start treated as a cut-off key: a shorter start gives nothing away. */
const MIN_CUT_CHARS = 4;

/** The key as it can appear in text: raw, trimmed, escaped once and twice; longest first. */
function keyForms(apiKey: string): string[] {
	const forms = new Set<string>();
	for (const raw of [apiKey, apiKey.trim()]) {
		if (raw.length < MIN_KEY_CHARS) continue;
		const once = JSON.stringify(raw).slice(1, -1);
		forms.add(raw).add(once).add(JSON.stringify(once).slice(1, -1));
	}
	return [...forms].sort((a, b) => b.length - a.length);
}

/** The length of the longest start (≥ MIN_CUT_CHARS) of a key form that `text` ends with. */
function cutKeyAtEnd(text: string, forms: readonly string[]): number {
	let longest = 0;
	for (const form of forms) {
		// From the left: the first suffix of the text that starts the form is the longest.
		let at = text.indexOf(form[0], Math.max(0, text.length - form.length + 1));
		while (at !== -1 && text.length - at >= MIN_CUT_CHARS) {
			if (form.startsWith(text.slice(at))) {
				longest = Math.max(longest, text.length - at);
				break;
			}
			at = text.indexOf(form[0], at + 1);
		}
	}
	return longest;
}

function redactForms(text: string, forms: readonly string[]): string {
	if (forms.length === 0) return text;
	let out = text;
	for (const form of forms) if (out.includes(form)) out = out.split(form).join(HIDDEN);
	const pieces = out.split('…');
	for (let i = 0; i < pieces.length; i++) {
		const cut = cutKeyAtEnd(pieces[i], forms);
		if (cut > 0) pieces[i] = `${pieces[i].slice(0, -cut)}${HIDDEN}`;
	}
	return pieces.join('…');
}

/**
 * `text` with every form of the key replaced by `***`, and a key cut off at the end of the text
 * or before a `…` (where a quote was shortened) too.
 */
export function redact(text: string, apiKey: string): string {
	return redactForms(text, keyForms(apiKey));
}

/** At most `max` characters of an answer's text, redacted before it is cut. */
export function quoteAnswer(text: string, apiKey: string, max: number): string {
	// Any key that starts within the first `max` characters ends within this window.
	const window = max + 4 * apiKey.length + 16;
	const redacted = redact(text.length > window ? text.slice(0, window) : text, apiKey);
	return redacted.length > max ? redacted.slice(0, max) : redacted;
}

/** A parsed answer with the key redacted from every string in it (keys of objects too). */
export function redactDeep(value: unknown, apiKey: string): unknown {
	const forms = keyForms(apiKey);
	if (forms.length === 0) return value;
	const walk = (item: unknown): unknown => {
		if (typeof item === 'string') return redactForms(item, forms);
		if (Array.isArray(item)) return item.map(walk);
		if (item === null || typeof item !== 'object') return item;
		const copy: Record<string, unknown> = {};
		for (const [name, inner] of Object.entries(item)) {
			// defineProperty: a "__proto__" field stays a field, not the copy's prototype.
			Object.defineProperty(copy, redactForms(name, forms), {
				value: walk(inner),
				enumerable: true,
				writable: true,
				configurable: true,
			});
		}
		return copy;
	};
	return walk(value);
}
