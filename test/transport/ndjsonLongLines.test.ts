/**
 * Long lines of the NDJSON reader: a final result line of hundreds of thousands of characters,
 * cut anywhere across chunks, gives what JSON.parse gives for the whole line. (The 2M-token run
 * through the emulator is in bigAnswer.test.ts.)
 */
import { NdjsonLines } from '../../nodes/shared/transport/ndjson';

/** A small deterministic generator, so that a failure can be replayed. */
function random(seed: number): () => number {
	let state = seed;
	return () => {
		state = (state * 1103515245 + 12345) % 2147483648;
		return state / 2147483648;
	};
}

/** JSON text with every character outside ASCII written as \uXXXX (surrogate halves apart). */
function asciiJson(value: unknown): string {
	return JSON.stringify(value).replace(
		/[\u007f-\uffff]/g,
		(c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
	);
}

/** Reads `tokens` as onNewToken events, then `finalLine` cut into the given pieces. */
function read(tokens: string[], finalPieces: string[]): unknown {
	const values: unknown[] = [];
	const known: string[] = [];
	const lines = new NdjsonLines((value) => {
		const token = (value as { data?: { token?: string } }).data?.token;
		if (token !== undefined) known.push(token);
		else values.push(value);
	});
	lines.push(
		tokens.map((token) => `${JSON.stringify({ tag: 'onNewToken', data: { token } })}\n`).join(''),
	);
	for (const piece of finalPieces) lines.push(piece);
	lines.end();
	expect(values).toHaveLength(1);
	return values[0];
}

function cutRandomly(text: string, next: () => number, maxPiece: number): string[] {
	const pieces: string[] = [];
	for (let at = 0; at < text.length; ) {
		const length = 1 + Math.floor(next() * maxPiece);
		pieces.push(text.slice(at, at + length));
		at += length;
	}
	return pieces;
}

const ALPHABET = ['a', 'b', ' ', '"', '\\', '\n', '\t', 'é', '€', '👋', '\u0001', '/', 'u', '\\u'];

function text(next: () => number, length: number): string {
	let out = '';
	while (out.length < length) out += ALPHABET[Math.floor(next() * ALPHABET.length)];
	return out;
}

describe('a long final line cut across chunks', () => {
	test.each([1, 2, 3, 4, 5, 6])(
		'gives what JSON.parse gives, whatever the cuts, escapes written either way (seed %i)',
		(seed) => {
			const next = random(seed);
			const answer = text(next, 300_000);
			const tokens = cutRandomly(answer, next, 40);
			const record = {
				id: 'req_1',
				status: 'complete',
				response: { text_output: answer, other: text(next, 5000) },
				aiMessage: { content: answer, steps: [{ stepLabel: 'short "one"', n: 1.5 }, null, true] },
				[text(next, 6000)]: 'a long key',
				empty: '',
				tail: text(next, 100_000),
			};
			const line = `${seed % 2 ? asciiJson(record) : JSON.stringify(record)}\r\n`;
			const value = read(tokens, cutRandomly(line, next, seed * 3000));
			expect(value).toEqual(JSON.parse(line));
		},
	);

	test.each([
		['equal to the streamed text', (t: string) => t],
		['a start of it', (t: string) => t.slice(0, 200_000)],
		['longer than it', (t: string) => `${t} and more`],
		['different from its middle on', (t: string) => `${t.slice(0, 150_000)}X${t.slice(150_001)}`],
		['different from the first character', (t: string) => `Z${t.slice(1)}`],
	])('text_output %s is read as sent', (_, change) => {
		const next = random(99);
		const answer = text(next, 300_000);
		const textOutput = change(answer);
		const line = `${JSON.stringify({ response: { text_output: textOutput }, aiMessage: { content: answer } })}\n`;
		const value = read(cutRandomly(answer, next, 30), cutRandomly(line, next, 65536));
		expect(value).toEqual({
			response: { text_output: textOutput },
			aiMessage: { content: answer },
		});
	});

	test('without streamed text, long strings are read as sent', () => {
		const answer = 'x'.repeat(400_000);
		expect(read([], [`{"a":"${answer}","b":["${answer}"]}\n`])).toEqual({ a: answer, b: [answer] });
	});

	test.each([
		['an unterminated string', `{"text_output":"${'x'.repeat(300_000)}`, /Unterminated string/],
		['a bad escape', `{"text_output":"${'x'.repeat(300_000)}\\q"}`, /not valid JSON/],
		[
			'bad JSON around the strings',
			`{"text_output":"${'x'.repeat(300_000)}" "b"}`,
			/not valid JSON/,
		],
	])('a long line with %s is refused, naming the line', (_, line, message) => {
		const lines = new NdjsonLines(() => {});
		lines.push('{"tag":"onFlowStart","data":{}}\n');
		expect(() => {
			for (const piece of cutRandomly(line, random(7), 70_000)) lines.push(piece);
			lines.end();
		}).toThrow(/^Line 2 of the stream/);
		const again = new NdjsonLines(() => {});
		expect(() => {
			again.push(`${line}\n`);
			again.end();
		}).toThrow(message);
	});

	test('a long event line is still held whole and refused past the limit', () => {
		const lines = new NdjsonLines(() => {}, 300_000);
		lines.push('{"tag":"onLog","data":{"message":"');
		expect(() => {
			for (let i = 0; i < 10; i++) lines.push('y'.repeat(50_000));
		}).toThrow(/Line 1 of the stream is longer than 300000 characters/);
	});
});
