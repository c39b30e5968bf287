/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals -- benchmark code: runs in jest, never in n8n */
/**
 * The harness of every in-engine benchmark: N alternating rounds of (candidate, baseline) pairs,
 * each run measured for wall time, process CPU (user + system) and heap growth, so that a
 * slower moment of a shared machine hits both sides of a pair alike.
 */
import { performance } from 'node:perf_hooks';

const gc = (global as { gc?: () => void }).gc;

/** What one run gives back to the harness while it works. */
export interface Probe {
	/**
	 * Records the heap now, after a full gc when `--expose-gc` is on, under `label` (for example
	 * 'last chunk', 'final line'); the peak of all samples is the run's heap figure.
	 */
	sample(label?: string): void;
}

export interface Sample {
	wallMs: number;
	/** Process CPU (user + system) during the run: the whole process, so both client and engine. */
	cpuMs: number;
	/** Peak heap used above the level after a gc before the run (timer every 5 ms + probes), MB. */
	heapMb: number;
	/** Heap above that level at each labelled probe, MB (the last sample of each label). */
	at: Record<string, number>;
	/** Figures the run returns itself (records, requests, bytes ...), checked equal across runs. */
	counts: Record<string, number>;
}

export type Run = (probe: Probe) => Promise<Record<string, number> | void>;

export interface Pair {
	candidate: Sample;
	baseline: Sample;
}

export interface RoundsOptions {
	rounds?: number;
	/** Unmeasured runs of each side first (JIT, module loading, sockets). Default 1. */
	warmups?: number;
	/** Runs between two measured runs, outside the figures (e.g. reset an emulator). */
	between?: () => Promise<void>;
}

/** Timers are kept coarse: 5 ms sampling costs little and catches a parse that peaks briefly. */
const HEAP_TIMER_MS = 5;

function heapUsed(collect: boolean): number {
	if (collect) gc?.();
	return process.memoryUsage().heapUsed;
}

/** Runs `run` once and measures it. */
export async function measure(run: Run): Promise<Sample> {
	await new Promise((resolve) => setImmediate(resolve));
	const base = heapUsed(true);
	let peak = base;
	const at: Record<string, number> = {};
	const timer = setInterval(() => (peak = Math.max(peak, heapUsed(false))), HEAP_TIMER_MS);
	const probe: Probe = {
		sample(label) {
			const now = heapUsed(true);
			peak = Math.max(peak, now);
			if (label) at[label] = (now - base) / 2 ** 20;
		},
	};
	const cpuBefore = process.cpuUsage();
	const started = performance.now();
	try {
		const counts = (await run(probe)) ?? {};
		const wallMs = performance.now() - started;
		const cpu = process.cpuUsage(cpuBefore);
		peak = Math.max(peak, heapUsed(false));
		return {
			wallMs,
			cpuMs: (cpu.user + cpu.system) / 1000,
			heapMb: (peak - base) / 2 ** 20,
			at,
			counts,
		};
	} finally {
		clearInterval(timer);
	}
}

/**
 * `rounds` (at least 5) pairs, the side that goes first alternating each round, after the
 * warm-ups. Throws when the runs disagree on a count (a benchmark of a broken run is worthless).
 */
export async function alternate(
	candidate: Run,
	baseline: Run,
	options: RoundsOptions = {},
): Promise<Pair[]> {
	const rounds = Math.max(5, options.rounds ?? Number(process.env.ROUNDS ?? 5));
	const noProbe: Probe = { sample() {} };
	for (let i = 0; i < (options.warmups ?? 1); i++) {
		await candidate(noProbe);
		await options.between?.();
		await baseline(noProbe);
		await options.between?.();
	}
	const pairs: Pair[] = [];
	for (let round = 0; round < rounds; round++) {
		const candidateFirst = round % 2 === 0;
		const first = await measure(candidateFirst ? candidate : baseline);
		await options.between?.();
		const second = await measure(candidateFirst ? baseline : candidate);
		await options.between?.();
		pairs.push(
			candidateFirst
				? { candidate: first, baseline: second }
				: { candidate: second, baseline: first },
		);
	}
	checkCounts(pairs);
	return pairs;
}

function checkCounts(pairs: Pair[]) {
	for (const side of ['candidate', 'baseline'] as const) {
		const first = pairs[0][side].counts;
		for (const { [side]: sample } of pairs) {
			for (const [name, value] of Object.entries(first)) {
				if (sample.counts[name] !== value) {
					throw new Error(`${side} runs disagree on ${name}: ${value} vs ${sample.counts[name]}`);
				}
			}
		}
	}
}

export interface Spread {
	min: number;
	median: number;
	max: number;
}

export function spread(values: number[]): Spread {
	const sorted = [...values].sort((a, b) => a - b);
	const middle = sorted.length >> 1;
	const median = sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
	return { min: sorted[0], median, max: sorted[sorted.length - 1] };
}
