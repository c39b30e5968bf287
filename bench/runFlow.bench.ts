/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals, no-console, @n8n/community-nodes/no-dangerous-functions -- benchmark code: runs in jest, never in n8n; it starts the emulator in a child process and prints its figures */
/**
 * BotDojo Run Flow against a raw read loop, in one process, against one emulator (run in a
 * child process, like a remote BotDojo, so its work does not land in the measured heap):
 *
 * 1. a 100k-token stream (flow_big, ≥ 5 MB of NDJSON): throughput of the node (through n8n's
 *    engine) vs a raw `http` loop that splits lines, parses them and concatenates the tokens;
 * 2. peak memory growth while reading it (heap sampled after `gc()`), vs the collected text;
 * 3. with live forwarding: the delay from a chunk's arrival in this process to the sendChunk
 *    of each token it carried;
 * 4. 200 items against a 50 ms flow at concurrency 1 vs 10.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as http from 'node:http';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';

import type { IDataObject } from 'n8n-workflow';

import * as ndjson from '../nodes/shared/transport/ndjson';
import { runNode, type BotDojoCredentialData } from '../test/helpers/engine';

const TOKENS = 100_000;
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const ITEMS = 200;
const gc = (global as { gc?: () => void }).gc;

interface Emulated {
	credentials: BotDojoCredentialData;
	/** Forgets the records (each big run leaves 2 MB of them in the emulator). */
	reset(): Promise<void>;
	close(): Promise<void>;
}

async function childEmulator(): Promise<Emulated> {
	const emulatorPath = path.resolve(__dirname, '../emulator');
	const script = `
		const { startEmulator } = require(${JSON.stringify(emulatorPath)});
		startEmulator({ port: 0 }).then((emu) => {
			process.on('message', (message) => {
				if (message === 'reset') { emu.reset(); process.send({ reset: true }); }
				if (message === 'close') emu.close().then(() => process.exit(0));
			});
			process.send({ baseUrl: emu.baseUrl, accountId: emu.accountId,
				projectId: emu.projectId, apiKey: emu.keys.project });
		});`;
	const child: ChildProcess = spawn(process.execPath, ['-e', script], {
		stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
	});
	const ready = await new Promise<BotDojoCredentialData>((resolve, reject) => {
		child.once('message', (message) => resolve(message as BotDojoCredentialData));
		child.once('exit', (code) => reject(new Error(`emulator exited with ${code}`)));
	});
	return {
		credentials: ready,
		async reset() {
			const done = new Promise((resolve) => child.once('message', resolve));
			child.send('reset');
			await done;
		},
		async close() {
			const exited = new Promise((resolve) => child.once('exit', resolve));
			child.send('close');
			await exited;
		},
	};
}

function runUrl(credentials: BotDojoCredentialData, flowId: string): URL {
	const { baseUrl, accountId, projectId } = credentials;
	return new URL(`${baseUrl}/accounts/${accountId}/projects/${projectId}/flows/${flowId}/run`);
}

interface RawResult {
	text: string;
	events: number;
	bytes: number;
	/** Size of the final result line (it repeats the text twice: response and aiMessage). */
	finalBytes: number;
}

/**
 * The raw loop: one POST, read the NDJSON as it comes, concatenate the tokens. `afterChunk`
 * runs once each chunk is processed (the memory pass samples the heap there).
 */
function rawRun(
	credentials: BotDojoCredentialData,
	flowId: string,
	body: object,
	afterChunk?: (bytesSoFar: number) => void,
) {
	return new Promise<RawResult>((resolve, reject) => {
		const payload = JSON.stringify({ body, options: { stream: 'http' } });
		const request = http.request(runUrl(credentials, flowId), {
			method: 'POST',
			agent: false,
			headers: {
				authorization: credentials.apiKey,
				'content-type': 'application/json',
				'content-length': Buffer.byteLength(payload),
			},
		});
		request.on('error', reject);
		request.on('response', (response) => {
			const decoder = new TextDecoder();
			let rest = '';
			let text = '';
			let events = 0;
			let bytes = 0;
			let finalBytes = 0;
			response.on('data', (chunk: Buffer) => {
				bytes += chunk.length;
				const lines = (rest + decoder.decode(chunk, { stream: true })).split('\n');
				rest = lines.pop() ?? '';
				for (const line of lines) {
					if (!line) continue;
					const value = JSON.parse(line) as { tag?: string; data?: { token?: string } };
					if (value.tag === 'onNewToken') text += value.data?.token ?? '';
					if (value.tag) events++;
					else finalBytes = Buffer.byteLength(line) + 1;
				}
				afterChunk?.(bytes);
			});
			response.on('end', () => resolve({ text, events, bytes, finalBytes }));
			response.on('error', reject);
		});
		request.end(payload);
	});
}

/** Runs `reader` with every chunk of the node's stream passed through `onChunk` first. */
async function withChunkHook<T>(
	onChunk: (chunk: Uint8Array | string) => void,
	reader: () => Promise<T>,
): Promise<T> {
	const original = ndjson.readNdjsonStream;
	const spy = jest.spyOn(ndjson, 'readNdjsonStream').mockImplementation(async (source, options) => {
		const hooked = {
			async *[Symbol.asyncIterator]() {
				for await (const chunk of source) {
					onChunk(chunk);
					yield chunk;
				}
			},
		} as AsyncIterable<Uint8Array>;
		return await original(hooked, options);
	});
	try {
		return await reader();
	} finally {
		spy.mockRestore();
	}
}

async function nodeRun(
	credentials: BotDojoCredentialData,
	parameters: Record<string, unknown>,
	items: Array<{ json: IDataObject }> = [{ json: {} }],
	onChunk?: (type: string) => void,
) {
	const result = await runNode({
		node: { type: 'botDojoRunFlow', parameters: parameters as never },
		credentials: { main: credentials },
		items,
		streaming: onChunk !== undefined,
		onChunk: onChunk ? (chunk) => onChunk(chunk.type) : undefined,
	});
	if (result.error) throw new Error(`node run failed: ${result.error.message}`);
	return result;
}

const bigRun = { flowId: 'flow_big', inputMode: 'json', bodyJson: `{"tokens": ${TOKENS}}` };

interface Growth {
	/** Peak over the whole stream, the final result line included. */
	peak: number;
	/** Peak while the events stream, before the final result line. */
	events: number;
}

/**
 * Heap growth while reading the stream, sampled at the same points for the node and the raw
 * loop: after the chunk that crosses each 256 KiB, a full gc, then the heap in use minus the
 * heap before the run.
 */
async function growth(
	finalStartsAt: number,
	run: (sample: (bytesSoFar: number) => void) => Promise<unknown>,
): Promise<Growth> {
	if (!gc) return { peak: NaN, events: NaN };
	await new Promise((resolve) => setTimeout(resolve, 200));
	gc();
	const base = process.memoryUsage().heapUsed;
	const result: Growth = { peak: 0, events: 0 };
	let next = 0;
	await run((bytesSoFar) => {
		if (bytesSoFar < next) return;
		next = bytesSoFar + 256 * 1024;
		gc();
		const grown = process.memoryUsage().heapUsed - base;
		result.peak = Math.max(result.peak, grown);
		if (bytesSoFar <= finalStartsAt) result.events = Math.max(result.events, grown);
	});
	return result;
}

/** Cumulative bytes of the node's stream, passed to `sample` after each chunk. */
function countingBytes(sample: (bytesSoFar: number) => void) {
	let bytes = 0;
	return (chunk: Uint8Array | string) => {
		// The hook runs before the chunk is read: sample what the previous chunks left.
		sample(bytes);
		bytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length;
	};
}

function percentile(sorted: number[], p: number): number {
	return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1];
const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(2);

/**
 * Live forwarding: stamps each chunk as the reader receives it and each sendChunk of a token;
 * the delay of a token is from the arrival of the chunk that completed its line.
 */
async function forwardingDelays(credentials: BotDojoCredentialData): Promise<number[]> {
	const arrivals: Array<{ at: number; lines: number }> = [];
	const sent: number[] = [];
	let lines = 0;
	await withChunkHook(
		(chunk) => {
			const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
			for (let i = bytes.indexOf(10); i !== -1; i = bytes.indexOf(10, i + 1)) lines++;
			arrivals.push({ at: performance.now(), lines });
		},
		() =>
			nodeRun(credentials, bigRun, undefined, (type) => {
				if (type === 'item') sent.push(performance.now());
			}),
	);
	// flow_big sends onFlowStart and onLog first: token k (from 0) is on line k + 3.
	const delays: number[] = [];
	let chunk = 0;
	sent.forEach((at, token) => {
		while (arrivals[chunk].lines < token + 3) chunk++;
		delays.push(at - arrivals[chunk].at);
	});
	return delays.sort((a, b) => a - b);
}

/** 200 items, `concurrency` at a time: through the node, and as raw requests for reference. */
async function batch(credentials: BotDojoCredentialData, concurrency: number) {
	const items = Array.from({ length: ITEMS }, (_, i) => ({ json: { q: `q${i}` } }));
	let start = performance.now();
	const { items: out } = await nodeRun(
		credentials,
		{ flowId: 'flow_delay50', message: '={{ $json.q }}', options: { concurrency } },
		items,
	);
	const nodeMs = performance.now() - start;
	if (out.length !== ITEMS || out.some((item) => item.json.status !== 'complete')) {
		throw new Error('the batch lost items');
	}
	start = performance.now();
	let next = 0;
	await Promise.all(
		Array.from({ length: concurrency }, async () => {
			while (next < ITEMS) await rawRun(credentials, 'flow_delay50', { text_input: `q${next++}` });
		}),
	);
	return { nodeMs, rawMs: performance.now() - start };
}

test('BotDojo Run Flow: 100k-token stream and concurrency', async () => {
	const emulated = await childEmulator();
	const { credentials } = emulated;
	try {
		// Warm-up: loads n8n's engine and the node, fills the JIT.
		await rawRun(credentials, 'flow_big', { tokens: 2000 });
		await nodeRun(credentials, { ...bigRun, bodyJson: '{"tokens": 2000}' });

		const raw: number[] = [];
		const node: number[] = [];
		const forwarding: number[] = [];
		let stream: RawResult = { text: '', events: 0, bytes: 0, finalBytes: 0 };
		for (let round = 0; round < ROUNDS; round++) {
			let start = performance.now();
			stream = await rawRun(credentials, 'flow_big', { tokens: TOKENS });
			raw.push(performance.now() - start);
			start = performance.now();
			const { items } = await nodeRun(credentials, bigRun);
			node.push(performance.now() - start);
			if (items[0].json.text !== stream.text) throw new Error('node and raw texts differ');
			start = performance.now();
			await nodeRun(credentials, bigRun, undefined, () => {});
			forwarding.push(performance.now() - start);
			await emulated.reset();
		}
		const textBytes = Buffer.byteLength(stream.text);
		const rawMs = median(raw);
		const nodeMs = median(node);
		const forwardMs = median(forwarding);

		const finalStartsAt = stream.bytes - stream.finalBytes;
		const rawGrowth = await growth(finalStartsAt, (sample) =>
			rawRun(credentials, 'flow_big', { tokens: TOKENS }, sample),
		);
		const nodeGrowth = await growth(finalStartsAt, (sample) =>
			withChunkHook(countingBytes(sample), () => nodeRun(credentials, bigRun)),
		);
		await emulated.reset();

		const delays = await forwardingDelays(credentials);
		await emulated.reset();

		const sequential = await batch(credentials, 1);
		const concurrent = await batch(credentials, 10);

		const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
		console.log(
			[
				`BotDojo Run Flow — ${TOKENS} tokens, ${mb(stream.bytes)} MB NDJSON, text ${mb(textBytes)} MB; medians of ${ROUNDS} rounds`,
				line(['', 'ms', 'tokens/s', 'MB/s', 'vs raw']),
				line(['---', '---', '---', '---', '---']),
				...[
					['raw http loop', rawMs],
					['node', nodeMs],
					['node + live forwarding', forwardMs],
				].map(([name, ms]) =>
					line([
						String(name),
						(ms as number).toFixed(0),
						((TOKENS / (ms as number)) * 1000).toFixed(0),
						(stream.bytes / 1024 / 1024 / ((ms as number) / 1000)).toFixed(1),
						`${(rawMs / (ms as number)).toFixed(2)}×`,
					]),
				),
				'',
				line([
					'peak heap growth after gc',
					'while events stream, MB',
					'× text',
					`with the ${mb(stream.finalBytes)} MB result line, MB`,
					'× text',
				]),
				line(['---', '---', '---', '---', '---']),
				...(
					[
						['raw http loop', rawGrowth],
						['node', nodeGrowth],
					] as const
				).map(([name, grown]) =>
					line([
						name,
						mb(grown.events),
						(grown.events / textBytes).toFixed(2),
						mb(grown.peak),
						(grown.peak / textBytes).toFixed(2),
					]),
				),
				'',
				`chunk arrival → sendChunk, ${delays.length} tokens: p50 ${percentile(delays, 50).toFixed(2)} ms, p95 ${percentile(delays, 95).toFixed(2)} ms, max ${delays[delays.length - 1].toFixed(2)} ms`,
				'',
				line([`${ITEMS} items, flow_delay50`, 'concurrency 1 ms', 'concurrency 10 ms', '10 vs 1']),
				line(['---', '---', '---', '---']),
				...(['nodeMs', 'rawMs'] as const).map((key) =>
					line([
						key === 'nodeMs' ? 'node' : 'raw http requests',
						sequential[key].toFixed(0),
						concurrent[key].toFixed(0),
						(concurrent[key] / sequential[key]).toFixed(3),
					]),
				),
				'',
				`targets: throughput ≥ 0.8× raw: ${rawMs / nodeMs >= 0.8 ? 'met' : 'NOT met'}; memory growth ≤ 2× text: ${nodeGrowth.peak <= 2 * textBytes ? 'met' : `NOT met with the result line (${(nodeGrowth.peak / textBytes).toFixed(2)}×), ${nodeGrowth.events <= 2 * textBytes ? 'met' : 'NOT met'} while events stream`}; concurrency 10 ≤ 1/8 of sequential: ${concurrent.nodeMs <= sequential.nodeMs / 8 ? 'met' : 'NOT met'}`,
			].join('\n'),
		);
	} finally {
		await emulated.close();
	}
});
