/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals, no-console -- benchmark code: runs in jest, never in n8n; it spawns its own measuring processes and prints its figures */
/**
 * Upload of a 50 MB file: BotDojo Upload Document through n8n's engine (in-memory binary and
 * filesystem-stored binary) vs a raw `fetch` multipart upload of the same bytes, against one
 * emulator. Peak memory is only honest in a fresh process (an allocator keeps freed pages and
 * hands them out again), so each scenario runs in its own jest child, measured from the moment
 * the node (or fetch) starts; the emulator runs in a child too, so its copies are not counted.
 * At least 5 rounds, the scenarios' order rotated each round; the report (bench/lib) pairs each
 * node mode with the same round's raw upload.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import type { IExecuteFunctions, INodeType } from 'n8n-workflow';

import {
	nodeTypes,
	runNode,
	setBinaryMode,
	type BotDojoCredentialData,
} from '../test/helpers/engine';
import { machine, report, startChildEmulator, type Pair, type Sample } from './lib';
import { figuresOfFreshJest, MemoryProbe, sampleOfFigures, type Figures } from './lib/memoryProbe';

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
	resultFile: process.env.BENCH_RESULT_FILE ?? '',
	credentials: JSON.parse(process.env.UPLOAD_BENCH_EMULATOR ?? 'null') as BotDojoCredentialData,
};

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
	return figuresOfFreshJest(
		__filename,
		{ UPLOAD_BENCH_SCENARIO: scenario, UPLOAD_BENCH_EMULATOR: JSON.stringify(credentials) },
		resultFile,
	);
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
					samples[scenario] = sampleOfFigures(runChild(scenario, emulator.credentials, resultFile));
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
