/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-dangerous-functions, no-console -- benchmark code: runs in jest, never in n8n; it spawns its own measuring processes and prints its figures */
/**
 * Upload of a 50 MB file: BotDojo Upload Document through n8n's engine (in-memory binary and
 * filesystem-stored binary) vs a raw `fetch` multipart upload of the same bytes, against one
 * emulator. Peak memory is only honest in a fresh process (an allocator keeps freed pages and
 * hands them out again), so each scenario runs in its own jest child, measured from the moment
 * the node (or fetch) starts; the emulator runs in a child too, so its copies are not counted.
 * At least 5 rounds, the scenarios' order rotated each round; the report (bench/lib) pairs each
 * node mode with the same round's raw upload.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as v8 from 'node:v8';
import * as vm from 'node:vm';

import type { IExecuteFunctions, INodeType } from 'n8n-workflow';

import {
	nodeTypes,
	runNode,
	setBinaryMode,
	type BotDojoCredentialData,
} from '../test/helpers/engine';
import { machine, report, startChildEmulator, type Pair, type Sample } from './lib';

const FILE_BYTES = 50 * 2 ** 20;
const MB = 2 ** 20;
const SCENARIOS = ['memory', 'filesystem', 'raw'] as const;
const ROUNDS = Math.max(5, Number(process.env.ROUNDS ?? 5));
type Scenario = (typeof SCENARIOS)[number];
const LABELS: Record<Scenario, string> = {
	memory: 'node, in-memory binary',
	filesystem: 'node, filesystem binary',
	raw: 'raw fetch + FormData',
};

/** Set in a child: the scenario to measure, where to write its figures, the emulator. */
const child = {
	scenario: process.env.UPLOAD_BENCH_SCENARIO as Scenario | undefined,
	resultFile: process.env.UPLOAD_BENCH_RESULT ?? '',
	credentials: JSON.parse(process.env.UPLOAD_BENCH_EMULATOR ?? 'null') as BotDojoCredentialData,
};

interface Figures {
	ms: number;
	/** Process CPU (user + system) of the measuring child during the upload. */
	cpuMs: number;
	/** Peak RSS above the RSS at the start (after a GC). */
	rssGrowth: number;
	/** Peak of Buffers, Blobs and external strings (`external`) above the start. */
	externalGrowth: number;
	heapGrowth: number;
}

/** Samples RSS every millisecond between start() and stop(); also reads the kernel's max RSS. */
class MemoryProbe {
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
async function collectGarbage() {
	v8.setFlagsFromString('--expose-gc');
	const gc = (global as { gc?: () => void }).gc ?? (vm.runInNewContext('gc') as () => void);
	for (let round = 0; round < 2; round++) {
		gc();
		await new Promise((resolve) => setTimeout(resolve, 150));
	}
}

/** The file: the same bytes in every child, without shipping 50 MB between processes. */
function benchFile(bytes: number): Buffer {
	const file = Buffer.alloc(bytes);
	let state = 0x9e3779b9;
	for (let offset = 0; offset + 4 <= bytes; offset += 4) {
		state ^= state << 13;
		state ^= state >>> 17;
		state ^= state << 5;
		file.writeUInt32LE(state >>> 0, offset);
	}
	return file;
}

/** The upload node's execute(), wrapped so that the probe covers exactly the node's own work. */
function probeUploadNode(probe: MemoryProbe): void {
	const nodeType = nodeTypes.getByNameAndVersion(
		'n8n-nodes-botdojo.botDojoUploadDocument',
	) as INodeType;
	const execute = nodeType.execute!;
	nodeType.execute = async function (this: IExecuteFunctions) {
		await probe.start();
		try {
			return await execute.call(this);
		} finally {
			probe.stop();
		}
	};
}

async function nodeUpload(file: Buffer, logicalPath: string): Promise<void> {
	const { items, error } = await runNode({
		node: {
			type: 'botDojoUploadDocument',
			parameters: { operation: 'upload', logicalPath } as never,
		},
		items: [
			{
				json: {},
				binary: {
					data: {
						base64: file.toString('base64'),
						fileName: 'bench.bin',
						mimeType: 'application/octet-stream',
					},
				},
			},
		],
		credentials: { main: child.credentials },
	});
	if (error) throw error;
	if (items[0].json.sizeBytes !== file.length)
		throw new Error(`uploaded ${items[0].json.sizeBytes} bytes`);
}

/** What a hand-written client does: a FormData with the file as a Blob, sent with fetch. */
async function rawUpload(file: Buffer, logicalPath: string, probe?: MemoryProbe): Promise<void> {
	const { baseUrl, accountId, projectId, apiKey } = child.credentials;
	await probe?.start();
	const form = new FormData();
	form.append(
		'document',
		new Blob([file as Uint8Array<ArrayBuffer>], { type: 'application/octet-stream' }),
		'bench.bin',
	);
	form.append('fileName', 'bench.bin');
	form.append('logicalPath', logicalPath);
	const response = await fetch(
		`${baseUrl}/accounts/${accountId}/projects/${projectId}/documents/upload-file`,
		{ method: 'POST', headers: { Authorization: apiKey }, body: form },
	);
	const record = (await response.json()) as { sizeBytes?: number };
	probe?.stop();
	if (record.sizeBytes !== file.length) throw new Error(`raw upload: ${JSON.stringify(record)}`);
}

async function measureScenario(scenario: Scenario): Promise<Figures> {
	const file = benchFile(FILE_BYTES);
	const probe = new MemoryProbe();
	// A small upload first loads every module and opens a connection.
	const warmUp = Buffer.from('warm-up');
	if (scenario === 'raw') {
		await rawUpload(warmUp, 'bench/warm-up');
		await rawUpload(file, 'bench/raw.bin', probe);
	} else {
		await setBinaryMode(scenario);
		probeUploadNode(probe);
		await nodeUpload(warmUp, 'bench/warm-up');
		await nodeUpload(file, `bench/${scenario}.bin`);
	}
	return probe.figures!;
}

/** Runs this file again in a fresh jest process that measures one scenario. */
function runChild(scenario: Scenario, credentials: object, resultFile: string): Figures {
	const jest = require.resolve('jest/bin/jest');
	const result = spawnSync(
		process.execPath,
		['--expose-gc', jest, '-c', 'jest.bench.config.js', '--runInBand', __filename],
		{
			cwd: path.resolve(__dirname, '..'),
			env: {
				...process.env,
				UPLOAD_BENCH_SCENARIO: scenario,
				UPLOAD_BENCH_RESULT: resultFile,
				UPLOAD_BENCH_EMULATOR: JSON.stringify(credentials),
			},
			encoding: 'utf8',
		},
	);
	if (result.status !== 0) throw new Error(`${scenario} run failed:\n${result.stderr}`);
	return JSON.parse(fs.readFileSync(resultFile, 'utf8')) as Figures;
}

function asSample(figures: Figures): Sample {
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

if (child.scenario) {
	const scenario = child.scenario;
	test(`upload scenario: ${scenario}`, async () => {
		fs.writeFileSync(child.resultFile, JSON.stringify(await measureScenario(scenario)));
	});
} else {
	test('upload of a 50 MB file: node (in-memory and filesystem binary) vs raw fetch', async () => {
		const emulator = await startChildEmulator();
		const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'upload-bench-'));
		try {
			// Each round runs the three scenarios in a rotated order; both node modes are paired
			// with the round's raw upload.
			const pairs: Record<'memory' | 'filesystem', Pair[]> = { memory: [], filesystem: [] };
			for (let round = 0; round < ROUNDS; round++) {
				const samples = {} as Record<Scenario, Sample>;
				for (let i = 0; i < SCENARIOS.length; i++) {
					const scenario = SCENARIOS[(round + i) % SCENARIOS.length];
					const resultFile = path.join(folder, `${scenario}-${round}.json`);
					samples[scenario] = asSample(runChild(scenario, emulator.credentials, resultFile));
				}
				for (const mode of ['memory', 'filesystem'] as const) {
					pairs[mode].push({ candidate: samples[mode], baseline: samples.raw });
				}
			}
			const rssPerFile = (s: Sample) => (s.memory?.['peak RSS growth'] ?? NaN) / (FILE_BYTES / MB);
			const figures: Array<[string, (s: Sample) => number, number]> = [
				['peak RSS growth ÷ file size', rssPerFile, 2],
				['MB/s', (s) => FILE_BYTES / MB / (s.wallMs / 1000), 0],
			];
			console.log(
				[
					machine(),
					`Upload of a ${FILE_BYTES / MB} MB file; each run in a fresh process, growth above its start (after gc). ` +
						"Both binary modes measured the same way: n8n-core's BinaryDataService in its default (in-memory) mode and in filesystem-v2 mode over a temporary folder (test/helpers/engine.ts setBinaryMode).",
					report('Node, in-memory binary vs raw fetch + FormData', pairs.memory, {
						names: { candidate: LABELS.memory, baseline: LABELS.raw },
						figures,
					}),
					'',
					report('Node, filesystem binary vs raw fetch + FormData', pairs.filesystem, {
						names: { candidate: LABELS.filesystem, baseline: LABELS.raw },
						figures,
					}),
					"Target: the node's peak memory ≤ 3× the file size. external = Buffers, Blobs, big strings.",
				].join('\n'),
			);
		} finally {
			await emulator.close();
			fs.rmSync(folder, { recursive: true, force: true });
		}
	});
}
