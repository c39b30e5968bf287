/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-dangerous-functions -- benchmark code: runs in jest, never in n8n */
/**
 * Peak memory of one run, measured in a fresh process (an allocator keeps freed pages and hands
 * them out again, so only a fresh process gives an honest peak): RSS sampled every millisecond
 * and the kernel's high-water mark, heap and Buffers beside it, CPU and wall time.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as v8 from 'node:v8';
import * as vm from 'node:vm';

import type { Sample } from './rounds';

const MB = 2 ** 20;

export interface Figures {
	ms: number;
	/** Process CPU (user + system) of the measuring child during the run. */
	cpuMs: number;
	/** Peak RSS above the RSS at the start (after a GC). */
	rssGrowth: number;
	/** Peak of Buffers, Blobs and external strings (`external`) above the start. */
	externalGrowth: number;
	heapGrowth: number;
}

/** Samples RSS every millisecond between start() and stop(); also reads the kernel's max RSS. */
export class MemoryProbe {
	private baselineRss = 0;
	private baselineHeap = 0;
	private baselineExternal = 0;
	private peakRss = 0;
	private peakHeap = 0;
	private peakExternal = 0;
	private maxRssAtStart = 0;
	private timer?: NodeJS.Timeout;
	private started = 0;
	private cpuAtStart = process.cpuUsage();
	figures?: Figures;

	async start() {
		await collectGarbage();
		const { rss, heapUsed, external } = process.memoryUsage();
		this.baselineRss = this.peakRss = rss;
		this.baselineHeap = this.peakHeap = heapUsed;
		this.baselineExternal = this.peakExternal = external;
		this.maxRssAtStart = process.resourceUsage().maxRSS * 1024;
		this.timer = setInterval(() => this.sample(), 1);
		this.cpuAtStart = process.cpuUsage();
		this.started = performance.now();
	}

	stop() {
		const ms = performance.now() - this.started;
		const cpu = process.cpuUsage(this.cpuAtStart);
		this.sample();
		clearInterval(this.timer);
		// The kernel's high-water mark catches a spike between samples, when it is this window's.
		const maxRss = process.resourceUsage().maxRSS * 1024;
		if (maxRss > this.maxRssAtStart) this.peakRss = Math.max(this.peakRss, maxRss);
		this.figures = {
			ms,
			cpuMs: (cpu.user + cpu.system) / 1000,
			rssGrowth: this.peakRss - this.baselineRss,
			externalGrowth: this.peakExternal - this.baselineExternal,
			heapGrowth: this.peakHeap - this.baselineHeap,
		};
	}

	private sample() {
		const { rss, heapUsed, external } = process.memoryUsage();
		this.peakRss = Math.max(this.peakRss, rss);
		this.peakHeap = Math.max(this.peakHeap, heapUsed);
		this.peakExternal = Math.max(this.peakExternal, external);
	}
}

/** A full GC, twice, with pauses: V8 frees ArrayBuffer and Blob memory on a background thread. */
export async function collectGarbage() {
	v8.setFlagsFromString('--expose-gc');
	const gc = (global as { gc?: () => void }).gc ?? (vm.runInNewContext('gc') as () => void);
	for (let round = 0; round < 2; round++) {
		gc();
		await new Promise((resolve) => setTimeout(resolve, 150));
	}
}

/**
 * Runs a bench file again in a fresh jest process (`env` tells it what to measure and where to
 * write its Figures as JSON) and reads the figures back.
 */
export function figuresOfFreshJest(
	file: string,
	env: Record<string, string>,
	resultFile: string,
): Figures {
	const jest = require.resolve('jest/bin/jest');
	const result = spawnSync(
		process.execPath,
		['--expose-gc', jest, '-c', 'jest.bench.config.js', '--runInBand', file],
		{
			cwd: path.resolve(__dirname, '../..'),
			env: { ...process.env, ...env, BENCH_RESULT_FILE: resultFile },
			encoding: 'utf8',
		},
	);
	if (result.status !== 0)
		throw new Error(`${path.basename(file)} child failed:\n${result.stderr}`);
	return JSON.parse(fs.readFileSync(resultFile, 'utf8')) as Figures;
}

/** The figures of a fresh process as a harness sample (bench/lib report), memory in MB. */
export function sampleOfFigures(figures: Figures): Sample {
	return {
		wallMs: figures.ms,
		cpuMs: figures.cpuMs,
		heapMb: figures.heapGrowth / MB,
		at: {},
		counts: {},
		memory: {
			'peak RSS growth': figures.rssGrowth / MB,
			'peak external growth': figures.externalGrowth / MB,
		},
	};
}
