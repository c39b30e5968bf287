/**
 * The checks behind the hostile-service fault table, case by case: where a signed link may lead,
 * and the forms of the key that redaction finds.
 */
import { quoteAnswer, redact, redactDeep } from '../../nodes/shared/transport/redaction';
import { isPrivateHost, linkProblem } from '../../nodes/shared/transport/download';

describe('isPrivateHost', () => {
	it.each([
		['localhost', true],
		['api.localhost', true],
		['127.0.0.1', true],
		['127.9.9.9', true],
		['10.1.2.3', true],
		['172.16.0.1', true],
		['172.31.255.255', true],
		['172.32.0.1', false],
		['192.168.1.1', true],
		['169.254.169.254', true],
		['100.64.0.1', true],
		['0.0.0.0', true],
		['[::1]', true],
		['[fd00::1]', true],
		['[fe80::1]', true],
		['[::ffff:127.0.0.1]', true],
		['storage.googleapis.com', false],
		['8.8.8.8', false],
		['[2001:db8::1]', false],
	])('%s → %s', (host, expected) => {
		expect(isPrivateHost(host)).toBe(expected);
	});
});

describe('linkProblem', () => {
	const remote = 'https://api.botdojo.com/api/v1';
	const local = 'http://127.0.0.1:3939/api/v1';
	it.each([
		[
			'https storage link, remote Base URL',
			'https://storage.example.com/f?sig=1',
			remote,
			undefined,
		],
		['http link, remote Base URL', 'http://storage.example.com/f', remote, /http address/],
		['https link at a private address', 'https://10.0.0.7/f', remote, /private network/],
		['the local Base URL itself over http', 'http://127.0.0.1:3939/signed/x', local, undefined],
		['another port of the local host', 'http://127.0.0.1:3940/signed/x', local, /this machine/],
		['another host over http from a local Base URL', 'http://example.com/x', local, /http address/],
		['file://', 'file:///etc/passwd', remote, /file: address/],
		['ftp://', 'ftp://example.com/x', remote, /ftp: address/],
	])('%s', (_case, link, base, problem) => {
		const found = linkProblem(new URL(link), base);
		if (problem === undefined) expect(found).toBeUndefined();
		else expect(found).toMatch(problem);
	});

	it('a redirect must stay on the host of the link that redirected', () => {
		const from = new URL('https://storage.example.com/a');
		expect(linkProblem(new URL('https://storage.example.com/b'), remote, from)).toBeUndefined();
		expect(linkProblem(new URL('https://cdn.example.net/b'), remote, from)).toMatch(
			/redirects to another host \(cdn\.example\.net\)/,
		);
	});
});

describe('redaction', () => {
	const key = 'k3y"with\\quote_0123';
	const once = JSON.stringify(key).slice(1, -1);
	const twice = JSON.stringify(once).slice(1, -1);

	it('finds the key raw, JSON-escaped once and twice', () => {
		expect(redact(`a ${key} b ${once} c ${twice} d`, key)).toBe('a *** b *** c *** d');
	});

	it('finds a key cut off at the end of a quote or before …', () => {
		expect(redact(`said: ${key.slice(0, 9)}`, key)).toBe('said: ***');
		expect(redact(`"${once.slice(0, 8)}…"`, key)).toBe('"***…"');
		// Seven characters or fewer are left (issue 26: an ordinary word that starts the key was
		// hidden); this row had 7 characters hidden until then.
		expect(redact(`"${once.slice(0, 7)}…"`, key)).toBe(`"${once.slice(0, 7)}…"`);
		expect(redact('ends in k3y', key)).toBe('ends in k3y');
	});

	it('quotes redact before they cut: no piece of a key that straddles the cut', () => {
		const text = `${'x'.repeat(195)}${key} and more`;
		const quoted = quoteAnswer(text, key, 200);
		expect(quoted).toBe(`${'x'.repeat(195)}*** a`);
		expect(quoted).not.toContain(key.slice(0, 4));
	});

	it('redactDeep: strings and field names; a "__proto__" field stays a field', () => {
		const body = JSON.parse(`{"__proto__": {"a": "${once}"}, "${once}": [1, "${once}"]}`);
		const clean = redactDeep(body, key) as Record<string, unknown>;
		expect(JSON.stringify(clean)).toBe('{"__proto__":{"a":"***"},"***":[1,"***"]}');
		expect(Object.getPrototypeOf(clean)).toBe(Object.prototype);
	});

	it('a key shorter than 12 characters is not looked for (was 4 before issue 26)', () => {
		expect(redact('abc abc', 'abc')).toBe('abc abc');
		expect(redact('abcdefghijk', 'abcdefghijk')).toBe('abcdefghijk');
	});
});
