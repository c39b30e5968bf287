/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals, no-console -- benchmark code: runs in jest, never in n8n; it prints its figures */
/**
 * BotDojo Run Flow through n8n's engine against a linear raw read loop (bench/runFlow/raw.ts),
 * one emulator in a child process (like a remote BotDojo), alternating rounds (bench/lib):
 *
 * 1. stream: flow_big at 50k, 1M and 2M tokens with default options: wall time and this
 *    process's CPU (user + system) for each pair;
 * 2. memory: heap growth after gc at the same points of the stream for both (runFlow/memory.ts),
 *    after the last chunk of events and after the final line is parsed, against the text;
 * 3. forward: live forwarding (streaming on): items sent per token, and the delay from a chunk's
 *    arrival to the sendChunk of what it carried, the first token included;
 * 4. batch: 200 items against a 50 ms flow, concurrency 10 and 1, node vs raw requests.
 *
 * TOKENS=50000,1000000 and PARTS=stream,memory choose what runs; ROUNDS (≥ 5) the rounds;
 * BENCH_RAW=1 prints each round's figures too.
 */
import { performance } from 'node:perf_hooks';

import { alternate, machine, report, spread, startChildEmulator, type ChildEmulator } from './lib';
import { heapProbes, heapReport, type HeapFigures } from './runFlow/memory';
import { bigRun, nodeRun, withStreamHooks } from './runFlow/node';
import { rawRun } from './runFlow/raw';

const SIZES = (process.env.TOKENS ?? '50000,1000000,2000000').split(',').map(Number);
const PARTS = new Set((process.env.PARTS ?? 'stream,memory,forward,batch').split(','));
const ROUNDS = Math.max(5, Number(process.env.ROUNDS ?? 5));
const ITEMS = 200;
const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(1);
const span = (values: number[], digits = 1) => {
	const { min, median, max } = spread(values);
	return `${median.toFixed(digits)} (${min.toFixed(digits)}–${max.toFixed(digits)})`;
};

async function streamAndMemory(emu: ChildEmulator, tokens: number, first: boolean) {
	const { credentials } = emu;
	const between = () => emu.reset();
	const expected = await rawRun(credentials, 'flow_big', { tokens });
	await between();
	const textBytes = Buffer.byteLength(expected.text);
	const what = `${tokens} tokens (${mb(expected.bytes)} MB of NDJSON, text ${mb(textBytes)} MB, final line ${mb(expected.finalBytes)} MB)`;
	const check = (text: unknown) => {
		if (text !== expected.text) throw new Error('the text differs from the answer');
		return { chars: expected.text.length };
	};
	const out: string[] = [];
	if (PARTS.has('stream')) {
		const pairs = await alternate(
			async () => check((await nodeRun(credentials, bigRun(tokens))).items[0].json.text),
			async () => check((await rawRun(credentials, 'flow_big', { tokens })).text),
			{ between, rounds: ROUNDS, warmups: first ? 1 : 0 },
		);
		out.push(
			report(`Run Flow, ${what}: node vs linear raw loop`, pairs, {
				names: { candidate: 'node', baseline: 'raw loop' },
				figures: [['MB/s of NDJSON', (s) => expected.bytes / 2 ** 20 / (s.wallMs / 1000), 1]],
			}),
		);
	}
	if (PARTS.has('memory')) {
		const heaps: Record<'node' | 'raw', HeapFigures[]> = { node: [], raw: [] };
		const finalStartsAt = expected.bytes - expected.finalBytes;
		await alternate(
			async () => {
				const probes = heapProbes(expected.bytes, finalStartsAt);
				const { items } = await withStreamHooks(probes.hooks, () =>
					nodeRun(credentials, bigRun(tokens)),
				);
				heaps.node.push(probes.figures);
				return check(items[0].json.text);
			},
			async () => {
				const probes = heapProbes(expected.bytes, finalStartsAt);
				const result = await rawRun(credentials, 'flow_big', { tokens }, probes.hooks);
				heaps.raw.push(probes.figures);
				return check(result.text);
			},
			{ between, rounds: ROUNDS, warmups: 0 },
		);
		out.push(
			heapReport(`Run Flow, ${what}`, textBytes, [
				['node', heaps.node],
				['raw loop', heaps.raw],
			]),
		);
	}
	return out;
}

/**
 * Live forwarding, ROUNDS runs: each item sent is stamped, each chunk stamped as the reader gets
 * it; an item's delay is from the arrival of the chunk read just before it was sent.
 */
async function forwarding(emu: ChildEmulator, tokens: number) {
	const rounds: Array<{ items: number; first: number; p50: number; p95: number; max: number }> = [];
	for (let round = 0; round < ROUNDS; round++) {
		let lastArrival = 0;
		const delays: number[] = [];
		await withStreamHooks({ beforeChunk: () => (lastArrival = performance.now()) }, () =>
			nodeRun(emu.credentials, bigRun(tokens), undefined, (type) => {
				if (type === 'item') delays.push(performance.now() - lastArrival);
			}),
		);
		await emu.reset();
		const sorted = [...delays].sort((a, b) => a - b);
		const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
		rounds.push({
			items: delays.length,
			first: delays[0],
			p50: at(0.5),
			p95: at(0.95),
			max: at(1),
		});
	}
	const figure = (key: keyof (typeof rounds)[0], digits = 2) =>
		span(
			rounds.map((r) => r[key]),
			digits,
		);
	return [
		`Live forwarding, ${tokens} tokens, ${ROUNDS} rounds, median (min–max): ${figure('items', 0)} items sent (batched per network read)`,
		`chunk arrival → sendChunk: first token ${figure('first')} ms; p50 ${figure('p50')} ms, p95 ${figure('p95')} ms, max ${figure('max')} ms`,
	];
}

/** ITEMS items against flow_delay50, `concurrency` at a time: node vs raw requests. */
async function batch(emu: ChildEmulator, concurrency: number) {
	const items = Array.from({ length: ITEMS }, (_, i) => ({ json: { q: `q${i}` } }));
	const pairs = await alternate(
		async () => {
			const { items: out } = await nodeRun(
				emu.credentials,
				{ flowId: 'flow_delay50', message: '={{ $json.q }}', options: { concurrency } },
				items,
			);
			if (out.length !== ITEMS || out.some((item) => item.json.status !== 'complete')) {
				throw new Error('the batch lost items');
			}
			return { items: out.length };
		},
		async () => {
			let next = 0;
			await Promise.all(
				Array.from({ length: concurrency }, async () => {
					while (next < ITEMS) {
						await rawRun(emu.credentials, 'flow_delay50', { text_input: `q${next++}` });
					}
				}),
			);
			return { items: ITEMS };
		},
		{ between: () => emu.reset(), rounds: ROUNDS },
	);
	return report(`${ITEMS} items, flow_delay50, concurrency ${concurrency}`, pairs, {
		names: { candidate: 'node', baseline: 'raw requests' },
		figures: [['CPU ms per item', (s) => s.cpuMs / ITEMS, 2]],
	});
}

test(
	'BotDojo Run Flow: streams of 50k to 2M tokens, forwarding, concurrency',
	async () => {
		const emu = await startChildEmulator();
		const print = (lines: string[]) => console.log(lines.join('\n'));
		try {
			print([`Machine: ${machine()}`]);
			for (const [index, tokens] of SIZES.entries()) {
				print(await streamAndMemory(emu, tokens, index === 0));
			}
			if (PARTS.has('forward')) print(await forwarding(emu, SIZES[0]));
			if (PARTS.has('batch')) print([await batch(emu, 10), await batch(emu, 1)]);
			print([`Machine at the end: ${machine()}`]);
		} finally {
			await emu.close();
		}
		// 2M tokens take 10–60 s a run on a shared 2-core machine: allow hours rather than fail.
	},
	4 * 3600_000,
);
