/**
 * The forms of the key a server or proxy produces when it quotes a request back, case by case:
 * each one redacted, nothing recoverable left, and text without the key left as it is.
 * The engine-level rows (what a user sees in n8n) are in test/faults/keyEcho*.
 */
import { MIN_KEY_CHARS } from '../../nodes/shared/transport/project';
import { quoteAnswer, redact, redactDeep } from '../../nodes/shared/transport/redaction';

/** A key with every character that changes when encoded: `+ / =`, space, `"` and `\`. */
const KEY = 'bdk_A+b/C=d e"f\\g_0123456789';

/** A key with characters of 2 and 4 UTF-8 bytes (a surrogate pair in JSON). */
const WIDE_KEY = 'bdk_Ünïcødé🙂_0123456789';

const base64 = (text: string) => Buffer.from(text).toString('base64');
const base64Url = (text: string) => Buffer.from(text).toString('base64url');

/** Every 5-byte piece of the key that base64 decoding of `text` gives back, at any alignment. */
function recoverable(text: string, key: string): string[] {
	const found = new Set<string>();
	for (const run of text.match(/[A-Za-z0-9+/_-]{4,}/g) ?? []) {
		for (let shift = 0; shift < 4; shift++) {
			const decoded = Buffer.from(run.slice(shift).replace(/-/g, '+').replace(/_/g, '/'), 'base64');
			for (let at = 0; at + 5 <= key.length; at++) {
				if (decoded.includes(Buffer.from(key.slice(at, at + 5)))) found.add(key.slice(at, at + 5));
			}
		}
	}
	return [...found];
}

describe('redaction of the encoded forms of the key', () => {
	it.each([
		['URL-encoded (%2B %2F %3D %20)', encodeURIComponent(KEY)],
		[
			'URL-encoded, lower-case hex',
			encodeURIComponent(KEY).toLowerCase().replace(/bdk_a/, 'bdk_A'),
		],
		['form-encoded (space as +)', new URLSearchParams({ k: KEY }).toString().slice(2)],
		['URL-encoded twice (%252B)', encodeURIComponent(encodeURIComponent(KEY))],
		['upper-cased', KEY.toUpperCase()],
		['lower-cased', KEY.toLowerCase()],
		[
			'\\u-escaped, every character',
			[...KEY].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join(''),
		],
		[
			'\\u-escaped quote and backslash only (HTML-safe JSON)',
			KEY.replace(/"/g, '\\u0022').replace(/\\(?!u0022)/g, '\\u005c'),
		],
		['JSON-escaped twice', JSON.stringify(JSON.stringify(KEY).slice(1, -1)).slice(1, -1)],
		['wrapped over two lines (CRLF and indent)', `${KEY.slice(0, 11)}\r\n    ${KEY.slice(11)}`],
		['wrapped, the line break JSON-escaped', `${KEY.slice(0, 9)}\\n${KEY.slice(9)}`],
	])('%s', (_form, echoed) => {
		const text = `Request was: ${echoed} (rejected)`;
		expect(redact(text, KEY)).toBe('Request was: *** (rejected)');
	});

	it.each([
		['the key alone', KEY],
		['"Bearer key"', `Bearer ${KEY}`],
		['"user:key" (Basic)', `user:${KEY}`],
		['a longer text that holds the key', `{"headers":{"authorization":"${KEY}"},"n":1}`],
	])('base64 of %s, at every alignment, standard and URL-safe, wrapped at 76', (_what, inner) => {
		for (const before of ['', 'x', 'xy', 'xyz']) {
			for (const encode of [base64, base64Url]) {
				const encoded = encode(`${before}${inner}`);
				const wrapped = encoded.replace(/(.{76})/g, '$1\r\n');
				for (const shown of [encoded, wrapped]) {
					const redacted = redact(`Authorization: Basic ${shown}`, KEY);
					expect(redacted).toContain('***');
					expect(recoverable(redacted, KEY)).toEqual([]);
				}
			}
		}
	});

	it.each([
		['URL-encoded, each character as all of its UTF-8 bytes', encodeURIComponent(WIDE_KEY)],
		[
			'\\u-escaped, a character beyond U+FFFF as its two surrogates',
			WIDE_KEY.replace(
				/[^\x20-\x7e]/g,
				(unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`,
			),
		],
	])('a key with characters beyond ASCII: %s', (_form, echoed) => {
		expect(redact(`Request was: ${echoed} (rejected)`, WIDE_KEY)).toBe(
			'Request was: *** (rejected)',
		);
	});

	it('the key inside a URL-encoded base64 (%2B, %2F, %3D)', () => {
		const shown = encodeURIComponent(base64(`user:${KEY}`));
		expect(recoverable(decodeURIComponent(redact(`auth=${shown}`, KEY)), KEY)).toEqual([]);
	});
});

describe('text without the key is left as it is', () => {
	const sentence = 'The API key was rejected: Unknown project "demo". Try again later…';

	it(`a key shorter than ${MIN_KEY_CHARS} characters is not looked for: ordinary words stay`, () => {
		expect(MIN_KEY_CHARS).toBe(12);
		expect(redact(sentence, 'API ')).toBe(sentence);
		expect(redact(sentence, 'key was rej')).toBe(sentence); // 11 characters
		expect(redact('key was reje', 'key was reje')).toBe('***'); // 12: looked for
	});

	it('a word that starts the key is not taken for a cut-off key', () => {
		expect(redact('Unknown project', 'project_4f9a0c2e7b1d')).toBe('Unknown project');
		expect(redact('Unknown project…', 'project_4f9a0c2e7b1d')).toBe('Unknown project…');
	});

	it('a key cut off after 8 characters or more is hidden; 7 are left', () => {
		expect(redact('said: project_', 'project_4f9a0c2e7b1d')).toBe('said: ***');
		expect(redact('"PROJECT_4f…"', 'project_4f9a0c2e7b1d')).toBe('"***…"');
	});

	it('a start of the key anywhere (24 of 32 characters) is hidden; fewer than 16 stay', () => {
		const key = ['bdk', '4f9a0c2e7b1d5a8c3e6f0b2d4a6c'].join('_'); // 32 characters
		expect(redact(`pasted ${key.slice(0, 24)} by mistake`, key)).toBe('pasted *** by mistake');
		expect(redact(`GET /x?k=${encodeURIComponent(key.slice(0, 16))}&a=1`, key)).toBe(
			'GET /x?k=***&a=1',
		);
		const ordinary = `the ${key.slice(0, 15)} prefix, bdk_ keys`;
		expect(redact(ordinary, key)).toBe(ordinary);
	});

	it('base64 and encoded text of other data, and long texts, stay', () => {
		const other = `${base64('some other secret, not the key at all')} ${encodeURIComponent('a+b/c=d e')}`;
		expect(redact(other, KEY)).toBe(other);
		const long = sentence.repeat(1000);
		expect(redact(long, KEY)).toBe(long);
	});

	it('a quote shortened after an encoded key shows no part of it', () => {
		const text = `${'x'.repeat(190)}${encodeURIComponent(KEY)} and more`;
		expect(quoteAnswer(text, KEY, 200)).toBe(`${'x'.repeat(190)}*** and mo`);
	});
});

describe('redactDeep at any depth', () => {
	it.each([
		['[ × 1,000,000', 1_000_000, '[', ']'],
		['{"error": × 7,000', 7_000, '{"error":', '}'],
	])('%s, the key at the bottom', (_what, depth, open, close) => {
		const body = JSON.parse(
			`${open.repeat(depth)}"${encodeURIComponent(KEY)}"${close.repeat(depth)}`,
		);
		let bottom = redactDeep(body, KEY);
		for (let level = 0; level < depth; level++) {
			bottom = Array.isArray(bottom) ? bottom[0] : (bottom as { error: unknown }).error;
		}
		expect(bottom).toBe('***');
	});

	it('copies only the arrays and objects on the way to a change: the rest as they are', () => {
		const body = {
			a: { b: [1, 'plain', { c: null }] },
			list: [{ d: 'x' }, { e: `Bearer ${KEY}` }],
			f: 'plain',
		};
		const before = JSON.stringify(body);
		const clean = redactDeep(body, KEY);
		expect(clean).not.toBe(body);
		expect(clean.a).toBe(body.a);
		expect(clean.list).not.toBe(body.list);
		expect(clean.list[0]).toBe(body.list[0]);
		expect(clean.list[1]).toEqual({ e: 'Bearer ***' });
		expect(JSON.stringify(body)).toBe(before); // the answer itself is left as it is
		expect(redactDeep(clean, KEY)).toBe(clean); // nothing left to redact: no copy at all
	});

	it('keeps the order of fields, field names redacted, "__proto__" a field', () => {
		const body = JSON.parse(
			`{"b":1,"${KEY.replace(/["\\]/g, '\\$&')}":2,"__proto__":{"a":[3,"${base64(KEY)}"]},"a":4}`,
		);
		const clean = redactDeep(body, KEY);
		// Base64's last characters hold padding and a few bits of the last byte: nothing to reuse.
		expect(JSON.stringify(clean)).toBe('{"b":1,"***":2,"__proto__":{"a":[3,"***Q=="]},"a":4}');
		expect(Object.getPrototypeOf(clean)).toBe(Object.prototype);
	});
});
