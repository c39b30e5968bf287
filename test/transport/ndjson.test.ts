/* eslint-disable @n8n/community-nodes/no-restricted-globals -- test code: runs in jest, never in n8n */
/** Unit tests of the NDJSON reader with hand-made chunk splits (the engine tests use real HTTP). */
import { ReadFailure as NdjsonStreamError } from '../../nodes/shared/transport/errors';
import {
	NdjsonLines,
	readNdjsonStream,
	type NdjsonStreamOptions,
} from '../../nodes/shared/transport/ndjson';
import type { Deadline } from '../../nodes/shared/transport/request';
import { runDeadline } from '../../nodes/shared/transport/run';

type RunLimits = Parameters<typeof runDeadline>[0];

const FINAL = { status: 'complete', response: { text_output: 'héllo wörld 👋' } };
const LINES = [
	{ tag: 'onFlowStart', data: {} },
	{ tag: 'onNewToken', data: { token: 'héllo ' } },
	{ tag: 'onNewToken', data: { token: 'wörld 👋' } },
	FINAL,
];
const BYTES = Buffer.from(LINES.map((line) => JSON.stringify(line) + '\n').join(''), 'utf8');

function linesOf(chunks: Array<Buffer | string>, max?: number): unknown[] {
	const values: unknown[] = [];
	const lines = new NdjsonLines((value) => values.push(value), max);
	for (const chunk of chunks) lines.push(chunk);
	lines.end();
	return values;
}

/** Cuts `bytes` at the given offsets. */
function cut(bytes: Buffer, offsets: number[]): Buffer[] {
	const chunks: Buffer[] = [];
	let start = 0;
	for (const offset of [...offsets, bytes.length]) {
		chunks.push(bytes.subarray(start, offset));
		start = offset;
	}
	return chunks;
}

/** A run's deadline whose answer (a stream) has begun. */
function streaming(limits: RunLimits): Deadline {
	const deadline = runDeadline(limits);
	deadline.began('stream');
	return deadline;
}

const isFinal = (value: unknown) => !(value as { tag?: string }).tag;

/** A source that yields the chunks, then (optionally) waits until stopped, like a stalled socket. */
function source(chunks: Buffer[], then: 'end' | 'stall' | 'error' = 'end') {
	let stopWith: ((error: Error) => void) | undefined;
	const iterable: AsyncIterable<Buffer> = {
		async *[Symbol.asyncIterator]() {
			for (const chunk of chunks) {
				await Promise.resolve();
				yield chunk;
			}
			if (then === 'error') throw Object.assign(new Error('aborted'), { code: 'ECONNRESET' });
			if (then === 'stall') {
				await new Promise<void>((_resolve, reject) => {
					stopWith = reject;
				});
			}
		},
	};
	const stopSource = (reason: Error) => stopWith?.(reason);
	return { iterable, stopSource };
}

async function read(
	chunks: Buffer[],
	then: 'end' | 'stall' | 'error' = 'end',
	extra: Partial<NdjsonStreamOptions> = {},
) {
	const { iterable, stopSource } = source(chunks, then);
	const seen: unknown[] = [];
	const result = await readNdjsonStream(iterable, {
		onValue: (value) => {
			seen.push(value);
			return isFinal(value);
		},
		stopSource,
		...extra,
	});
	return { ...result, seen };
}

async function failure(promise: Promise<unknown>): Promise<NdjsonStreamError> {
	try {
		await promise;
	} catch (error) {
		expect(error).toBeInstanceOf(NdjsonStreamError);
		return error as NdjsonStreamError;
	}
	throw new Error('expected the read to fail');
}

describe('NdjsonLines', () => {
	test('one chunk per byte still gives every value, multi-byte characters intact', () => {
		const chunks = cut(
			BYTES,
			Array.from({ length: BYTES.length - 1 }, (_, i) => i + 1),
		);
		expect(linesOf(chunks)).toEqual(LINES);
	});

	test('every single cut point, including inside each multi-byte character, gives the same values', () => {
		const multiByteStarts = [...BYTES.keys()].filter((i) => BYTES[i] >= 0xc0);
		expect(multiByteStarts.length).toBeGreaterThan(3);
		for (let offset = 1; offset < BYTES.length; offset++) {
			expect(linesOf(cut(BYTES, [offset]))).toEqual(LINES);
		}
	});

	test('a line split over many chunks, and lines joined in one chunk', () => {
		const text = BYTES.toString('utf8');
		const middle = Math.floor(text.length / 2);
		expect(linesOf([text.slice(0, 5), text.slice(5, middle), text.slice(middle)])).toEqual(LINES);
		expect(linesOf([Buffer.concat([BYTES, BYTES])])).toEqual([...LINES, ...LINES]);
	});

	test('blank lines and CRLF endings are accepted; a last line without newline counts', () => {
		const text = '\n{"a":1}\r\n\r\n  \n{"b":2}';
		expect(linesOf([text])).toEqual([{ a: 1 }, { b: 2 }]);
	});

	test('blank and whitespace-only lines are only read: no JSON.parse (and no caught exception) each', () => {
		const blanks = '\n'.repeat(100_000) + ' \t\r\n'.repeat(10_000);
		const parse = jest.spyOn(JSON, 'parse');
		try {
			expect(linesOf([blanks, '{"a":1}\n', blanks, '{"b":2}\n'])).toEqual([{ a: 1 }, { b: 2 }]);
			expect(parse).toHaveBeenCalledTimes(2);
		} finally {
			parse.mockRestore();
		}
	});

	test('a line longer than the limit is refused before it is held whole', () => {
		const lines = new NdjsonLines(() => {}, 1000);
		lines.push('{"tag":"onNewToken","data":{"token":"');
		const piece = 'x'.repeat(500);
		lines.push(piece);
		expect(() => lines.push(piece)).toThrow(/Line 1 of the stream is longer than 1000 characters/);
	});

	test('a complete line in one chunk that is too long is refused too', () => {
		const lines = new NdjsonLines(() => {}, 10);
		expect(() => lines.push('{"token":"0123456789"}\n')).toThrow(/longer than 10 characters/);
	});

	// The final result carries the answer twice: it may exceed the limit by twice what came before.
	const tokens = Array.from(
		{ length: 20 },
		(_, i) => `{"tag":"onNewToken","data":{"token":"t${i} "}}\n`,
	);
	const answer = Array.from({ length: 20 }, (_, i) => `t${i} `).join('');
	const finalLine = `${JSON.stringify({ response: { text_output: answer }, aiMessage: { content: answer } })}\n`;

	test.each([
		['in one chunk', [tokens.join(''), finalLine]],
		['split in pieces', [tokens.join(''), ...finalLine.match(/.{1,7}/gs)!]],
	])(
		'a final result line over the limit is read when the stream carried its text (%s)',
		(_, chunks) => {
			const values = linesOf(chunks as string[], 100);
			expect(values).toHaveLength(21);
			expect(values[20]).toEqual({
				response: { text_output: answer },
				aiMessage: { content: answer },
			});
		},
	);

	test.each([
		[
			'an event line, however much came before',
			[...tokens, `{"tag":"onLog","data":"${'x'.repeat(200)}"}\n`],
		],
		['a result line longer than the limit plus twice what came before it', [tokens[0], finalLine]],
	])('refused: %s', (_, chunks) => {
		expect(() => linesOf(chunks, 100)).toThrow(/longer than 100 characters/);
	});
});

describe('readNdjsonStream', () => {
	test('reads to the final value and counts the events before it', async () => {
		const result = await read(cut(BYTES, [3, 40, 41, 90]));
		expect(result.final).toEqual(FINAL);
		expect(result.events).toBe(3);
		expect(result.seen).toEqual(LINES);
	});

	test('stops at the final value: later lines are not read', async () => {
		const after = Buffer.from('{"tag":"onLog","data":{}}\nnot json\n');
		const result = await read([BYTES, after]);
		expect(result.final).toEqual(FINAL);
		expect(result.seen).toHaveLength(4);
	});

	test('a line that is not JSON: says which line and how many events had arrived', async () => {
		const first = Buffer.from(JSON.stringify(LINES[0]) + '\n');
		const bad = Buffer.from('{"tag":"onNewToken","data":#!garbage\n');
		const error = await failure(read([first.subarray(0, 10), first.subarray(10), bad]));
		expect(error.kind).toBe('malformed');
		expect(error.events).toBe(1);
		expect(error.message).toMatch(
			/^Line 2 of the stream is not valid JSON \(.+\): ".*#!garbage"; 1 event had arrived$/,
		);
	});

	test('a stream that ends without the final line', async () => {
		const withoutFinal = Buffer.from(
			LINES.slice(0, 3)
				.map((line) => JSON.stringify(line) + '\n')
				.join(''),
		);
		const error = await failure(read([withoutFinal]));
		expect(error.kind).toBe('incomplete');
		expect(error.events).toBe(3);
		expect(error.message).toBe(
			'The stream ended without the final result line; 3 events had arrived',
		);
	});

	test('a dropped connection', async () => {
		const error = await failure(read([BYTES.subarray(0, 60)], 'error'));
		expect(error.kind).toBe('dropped');
		expect(error.events).toBe(1);
		expect(error.message).toBe(
			'The connection dropped before the final result line (aborted); 1 event had arrived',
		);
	});

	test('a stall ends by the idle timeout, stopping the source', async () => {
		const deadline = streaming({ timeoutMs: 0, idleTimeoutMs: 30 });
		const error = await failure(read([BYTES.subarray(0, 60)], 'stall', { deadline }));
		expect(error.kind).toBe('idle');
		expect(error.message).toBe(
			'The stream stalled: nothing arrived for 30 ms; 1 event had arrived',
		);
	});

	test('the total timeout ends a stream that keeps stalling', async () => {
		const deadline = streaming({ timeoutMs: 30, idleTimeoutMs: 60_000 });
		const error = await failure(read([BYTES.subarray(0, 60)], 'stall', { deadline }));
		expect(error.kind).toBe('timeout');
		expect(error.message).toBe(
			'The run took longer than the timeout of 30 ms; 1 event had arrived',
		);
	});

	test('the cancel signal ends the stream at once', async () => {
		const cancel = new AbortController();
		const pending = read([BYTES.subarray(0, 60)], 'stall', { cancelSignal: cancel.signal });
		await new Promise((resolve) => setImmediate(resolve));
		cancel.abort();
		const error = await failure(pending);
		expect(error.kind).toBe('cancelled');
		expect(error.events).toBe(1);
	});

	test('an oversize line stops the read with the event count', async () => {
		const huge = Buffer.from(`{"tag":"onNewToken","data":{"token":"${'x'.repeat(5000)}"}}\n`);
		const error = await failure(
			read([BYTES.subarray(0, 60), huge.subarray(0, 3000), huge.subarray(3000)], 'end', {
				maxLineChars: 4096,
			}),
		);
		expect(error.kind).toBe('oversize');
		expect(error.message).toMatch(/longer than 4096 characters.*; 1 event had arrived$/);
	});

	test("an error of the caller's own callback is passed on as it is, and the source is stopped", async () => {
		const stopped: Error[] = [];
		const failure = new Error('callback broke');
		const promise = readNdjsonStream(source([BYTES]).iterable, {
			onValue: () => {
				throw failure;
			},
			stopSource: (reason) => stopped.push(reason),
		});
		await expect(promise).rejects.toBe(failure);
		expect(stopped).toEqual([failure]);
	});

	test('a last line without a newline that is not JSON is worded with the event count, and the source is stopped', async () => {
		const stopped: Error[] = [];
		const first = `${JSON.stringify(LINES[0])}\n`;
		const error = await failure(
			readNdjsonStream(source([Buffer.from(`${first}{"tag":#!`)]).iterable, {
				onValue: isFinal,
				stopSource: (reason) => stopped.push(reason),
			}),
		);
		expect(error.kind).toBe('malformed');
		expect(error.message).toMatch(
			/^Line 2 of the stream is not valid JSON .*; 1 event had arrived$/,
		);
		expect(stopped).toEqual([error]);
	});

	test("the caller's own error on a last line without a newline is passed on as it is too", async () => {
		const stopped: Error[] = [];
		const failure = new Error('callback broke');
		const promise = readNdjsonStream(source([Buffer.from('{"tag":"onLog"}')]).iterable, {
			onValue: () => {
				throw failure;
			},
			stopSource: (reason) => stopped.push(reason),
		});
		await expect(promise).rejects.toBe(failure);
		expect(stopped).toEqual([failure]);
	});

	test("a whole stream past its bound is 'overlong', however short its lines", async () => {
		const line = Buffer.from('{"tag":"onNewToken","data":{}}\n');
		const chunks = Array.from({ length: 40 }, () => line);
		const error = await failure(read(chunks, 'end', { maxLineChars: 64 }));
		expect(error.kind).toBe('overlong');
		expect(error.message).toMatch(
			/^The stream is longer than 1024 characters in all.*; \d+ events had arrived$/,
		);
	});
});
