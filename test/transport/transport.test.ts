import { positionalBody, unwrapResults } from '../../nodes/shared/transport/api';
import { serviceMessage } from '../../nodes/shared/transport/errors';
import { projectUrl } from '../../nodes/shared/transport/project';
import { parseRetryAfter, readAnswer, readWithin } from '../../nodes/shared/transport/request';

describe('transport building blocks', () => {
	const credentials = {
		baseUrl: 'https://api.botdojo.com/api/v1',
		accountId: 'acc 1',
		projectId: 'p/2',
	};

	it('builds project URLs with or without a trailing slash, ids URL-encoded', () => {
		const expected =
			'https://api.botdojo.com/api/v1/accounts/acc%201/projects/p%2F2/flows/f%3Fx/run';
		expect(projectUrl(credentials, ['flows', 'f?x', 'run'])).toBe(expected);
		expect(
			projectUrl({ ...credentials, baseUrl: `${credentials.baseUrl}//` }, ['flows', 'f?x', 'run']),
		).toBe(expected);
	});

	it('leaves out absent trailing parameters and sends absent middle ones as null', () => {
		expect(positionalBody(['flow', undefined, 100, undefined, undefined])).toEqual({
			params: ['flow', null, 100],
		});
		expect(positionalBody(['flow', undefined, 100, undefined, '2026-01-01T00:00:00.000Z'])).toEqual(
			{
				params: ['flow', null, 100, null, '2026-01-01T00:00:00.000Z'],
			},
		);
		expect(positionalBody([])).toEqual({ params: [] });
	});

	it('reads answers with or without a results wrapper', () => {
		expect(unwrapResults({ results: [1, 2] })).toEqual([1, 2]);
		expect(unwrapResults({ results: 'https://signed' })).toBe('https://signed');
		expect(unwrapResults({ id: 'ses_1', sessionState: {} })).toEqual({
			id: 'ses_1',
			sessionState: {},
		});
		// Issue 9 §3: unwrapped whatever sits beside it (export pages are read by their own reader).
		expect(unwrapResults({ success: true, results: { id: 'idx_docs' } })).toEqual({
			id: 'idx_docs',
		});
	});

	it('a body stopped while a chunk is handled fails with the Stop, never ends as if whole', async () => {
		const stop = new AbortController();
		async function* body() {
			yield Buffer.from('{"a":');
			yield Buffer.from('1}');
		}
		const seen: Uint8Array[] = [];
		const bounds = {
			maxBytes: 100,
			tooLarge: 'too large',
			signal: stop.signal,
			canceled: 'Stopped',
		};
		const reading = (async () => {
			for await (const chunk of readWithin(body(), bounds)) {
				seen.push(chunk);
				stop.abort();
			}
		})();
		await expect(reading).rejects.toThrow('Stopped');
		expect(seen).toHaveLength(1);
	});

	it('parses an answer read from the stream as n8n would: JSON, else its text', async () => {
		async function* chunks(...parts: Uint8Array[]) {
			yield* parts;
		}
		// A byte order mark, and "ü" split across two network reads.
		const bytes = Buffer.from('\uFEFF{"results":[{"q":"Grüße"}]}');
		const cut = bytes.indexOf(0xc3) + 1;
		expect(await readAnswer(chunks(bytes.subarray(0, cut), bytes.subarray(cut)))).toEqual({
			results: [{ q: 'Grüße' }],
		});
		expect(await readAnswer(chunks(Buffer.from('<html>Bad gateway</html>')))).toBe(
			'<html>Bad gateway</html>',
		);
		// A body n8n already parsed (n8n versions or helpers that do) is taken as it is.
		expect(await readAnswer({ results: [] })).toEqual({ results: [] });
	});

	it('reads Retry-After as seconds or as an HTTP date', () => {
		expect(parseRetryAfter('2')).toBe(2000);
		expect(parseRetryAfter('0.5')).toBe(500);
		expect(parseRetryAfter(undefined)).toBeUndefined();
		expect(parseRetryAfter('soon')).toBeUndefined();
		const inTenSeconds = new Date(Date.now() + 10_000).toUTCString();
		expect(parseRetryAfter(inTenSeconds)).toBeGreaterThan(8000);
	});

	it("finds the service's message in the usual error shapes", () => {
		expect(serviceMessage({ error: { code: 'NOT_FOUND', message: 'Flow x not found' } })).toBe(
			'Flow x not found',
		);
		expect(serviceMessage({ message: 'Bad limit' })).toBe('Bad limit');
		expect(serviceMessage({ error: 'Error loading session s1' })).toBe('Error loading session s1');
		expect(serviceMessage('Internal Server Error')).toBe('Internal Server Error');
		expect(serviceMessage({})).toBeUndefined();
	});
});
