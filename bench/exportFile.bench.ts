/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals, no-console -- benchmark code: runs in jest, never in n8n; it prints its figures */
/**
 * Export to a CSV file (Output › CSV File, n8n's filesystem binary mode) against an emulator in
 * a child process, in three parts (PARTS=speed,raw,rss chooses; ROUNDS ≥ 5):
 * - speed: CSV File vs Items (Return All) at 100k records, alternating: time per record.
 * - raw: CSV File vs a raw cursor loop (`fetch`, JSON parse, the same CSV rows, a file write
 *   stream with backpressure) at 1M records, alternating; both files are checked byte-equal.
 * - rss: peak RSS growth of a CSV File export at 100k and at 1M, and of the raw loop at 1M, each
 *   in a fresh process (an allocator keeps freed pages, so only a fresh process gives an honest
 *   peak).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import type { IBinaryData } from 'n8n-workflow';

import { CSV_COLUMNS, csvRows } from '../nodes/BotDojoExportRequests/actions/exportFile';
import {
	binaryStoragePath,
	runNode,
	setBinaryMode,
	type BotDojoCredentialData,
} from '../test/helpers/engine';
import { exportRequestsNode } from '../test/helpers/exportRequestsNode';
import { alternate, machine, report, startChildEmulator, type Pair, type Sample } from './lib';
import { figuresOfFreshJest, MemoryProbe, sampleOfFigures } from './lib/memoryProbe';

const FLOW = 'flow_bench';
const LARGE = Number(process.env.EXPORT_FILE_RECORDS ?? 1_000_000);
const SMALL = Number(process.env.EXPORT_FILE_SMALL ?? 100_000);
const PAGE_SIZE = 1000;
const SEED = { start: Date.parse('2024-01-01T00:00:00Z'), stepMs: 1000, errorEvery: 9 };
const PARTS = new Set((process.env.PARTS ?? 'speed,raw,rss').split(','));
const ROUNDS = Math.max(5, Number(process.env.ROUNDS ?? 5));
const MB = 2 ** 20;

/** Set in a child of the rss part: how many records to export, and the emulator. */
const child = {
	records: Number(process.env.EXPORT_FILE_CHILD_RECORDS ?? 0),
	/** Measure the raw cursor loop instead of the node. */
	raw: process.env.EXPORT_FILE_CHILD_RAW === '1',
	resultFile: process.env.BENCH_RESULT_FILE ?? '',
	credentials: JSON.parse(process.env.EXPORT_FILE_EMULATOR ?? 'null') as BotDojoCredentialData,
};

async function exportNode(
	credentials: BotDojoCredentialData,
	output: 'items' | 'csvFile',
	records: number,
): Promise<{ records: number; bytes: number }> {
	const { items, error } = await runNode({
		node: exportRequestsNode(FLOW, { output, limit: records, options: { pageSize: PAGE_SIZE } }),
		credentials: { main: credentials },
	});
	if (error) throw new Error(`node failed: ${error.message}`);
	if (output === 'items') return { records: items.length, bytes: 0 };
	const binary = items[0].binary?.data as IBinaryData;
	return { records: items[0].json.records as number, bytes: binary.bytes ?? NaN };
}

/** What a hand-written client does: POST each page, parse it, write its CSV rows to a file. */
async function rawCursorLoop(credentials: BotDojoCredentialData, records: number, file: string) {
	const url = `${credentials.baseUrl}/accounts/${credentials.accountId}/projects/${credentials.projectId}/flow_requests/export`;
	const out = fs.createWriteStream(file);
	const write = async (text: string) => {
		if (!out.write(text)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
	};
	await write(`${CSV_COLUMNS.join(',')}\r\n`);
	let cursor: string | null = null;
	let written = 0;
	while (written < records) {
		const response = await fetch(url, {
			method: 'POST',
			headers: { Authorization: credentials.apiKey, 'Content-Type': 'application/json' },
			body: JSON.stringify({
				params: [FLOW, cursor, Math.min(PAGE_SIZE, records - written)],
			}),
		});
		if (!response.ok) throw new Error(`export answered ${response.status}`);
		const page = (await response.json()) as {
			results: [];
			nextCursor: string | null;
			hasMore: boolean;
		};
		written += page.results.length;
		await write(csvRows(page.results));
		if (!page.hasMore) break;
		cursor = page.nextCursor;
	}
	await new Promise((resolve) => out.end(resolve));
	return { records: written, bytes: fs.statSync(file).size };
}

/** Files of earlier runs are removed between runs, so the disk holds one at a time. */
function clearFiles(folder: string) {
	for (const name of fs.readdirSync(folder))
		fs.rmSync(path.join(folder, name), { recursive: true });
}

async function speedPart(credentials: BotDojoCredentialData): Promise<string> {
	const storage = binaryStoragePath();
	const pairs = await alternate(
		async () => await exportNode(credentials, 'csvFile', SMALL),
		async () => await exportNode(credentials, 'items', SMALL),
		{ between: async () => clearFiles(storage) },
	);
	const perRecordUs = (s: Sample) => (s.wallMs * 1000) / SMALL;
	const cpuPerRecordUs = (s: Sample) => (s.cpuMs * 1000) / SMALL;
	return report(`Export of ${SMALL} records: CSV File vs Items (Return All)`, pairs, {
		names: { candidate: 'CSV File (filesystem)', baseline: 'Items' },
		figures: [
			['wall µs per record', perRecordUs, 2],
			['CPU µs per record', cpuPerRecordUs, 2],
		],
	});
}

async function rawPart(credentials: BotDojoCredentialData, folder: string): Promise<string> {
	const storage = binaryStoragePath();
	const rawFile = path.join(folder, 'raw.csv');
	const pairs = await alternate(
		async () => await exportNode(credentials, 'csvFile', LARGE),
		async () => await rawCursorLoop(credentials, LARGE, rawFile),
		{ between: async () => clearFiles(storage) },
	);
	for (const { candidate, baseline } of pairs) {
		if (candidate.counts.records !== LARGE || candidate.counts.bytes !== baseline.counts.bytes)
			throw new Error(`the node's CSV differs: ${JSON.stringify([candidate, baseline])}`);
	}
	return report(`Export of ${LARGE} records to CSV: node vs raw cursor loop`, pairs, {
		names: { candidate: 'CSV File (filesystem)', baseline: 'raw fetch loop + write stream' },
		figures: [
			['records/s', (s) => (LARGE / s.wallMs) * 1000, 0],
			['CPU µs per record', (s) => (s.cpuMs * 1000) / LARGE, 2],
			['file MB', (s) => s.counts.bytes / MB, 1],
		],
	});
}

function rssPart(credentials: BotDojoCredentialData, folder: string): string {
	const bySize: Pair[] = [];
	const againstRaw: Pair[] = [];
	const measure = (records: number, round: number, raw = false) =>
		sampleOfFigures(
			figuresOfFreshJest(
				__filename,
				{
					EXPORT_FILE_CHILD_RECORDS: String(records),
					EXPORT_FILE_CHILD_RAW: raw ? '1' : '',
					EXPORT_FILE_EMULATOR: JSON.stringify(credentials),
				},
				path.join(folder, `rss-${records}-${raw ? 'raw' : 'node'}-${round}.json`),
			),
		);
	for (let round = 0; round < ROUNDS; round++) {
		// The three runs of a round in a rotated order.
		const runs = [
			() => measure(LARGE, round),
			() => measure(SMALL, round),
			() => measure(LARGE, round, true),
		];
		const samples: Sample[] = [];
		for (let i = 0; i < runs.length; i++) samples[(round + i) % 3] = runs[(round + i) % 3]();
		const [large, small, raw] = samples;
		bySize.push({ candidate: large, baseline: small });
		againstRaw.push({ candidate: large, baseline: raw });
	}
	const title = (what: string) => `CSV export, each run in a fresh process: ${what}`;
	return [
		report(title(`node, ${LARGE} vs ${SMALL} records`), bySize, {
			names: { candidate: `${LARGE} records`, baseline: `${SMALL} records` },
		}),
		report(title(`${LARGE} records, node vs raw cursor loop`), againstRaw, {
			names: { candidate: 'CSV File (filesystem)', baseline: 'raw fetch loop + write stream' },
		}),
	].join('\n\n');
}

if (child.records) {
	test(`CSV File export of ${child.records} records, fresh process`, async () => {
		await setBinaryMode('filesystem');
		const rawFile = path.join(path.dirname(child.resultFile), 'raw-child.csv');
		const run = async (records: number) =>
			child.raw
				? await rawCursorLoop(child.credentials, records, rawFile)
				: await exportNode(child.credentials, 'csvFile', records);
		await run(10);
		const probe = new MemoryProbe();
		await probe.start();
		const done = await run(child.records);
		probe.stop();
		if (done.records !== child.records) throw new Error(`exported ${done.records} records`);
		clearFiles(binaryStoragePath());
		fs.writeFileSync(child.resultFile, JSON.stringify(probe.figures));
	});
} else {
	test(`export to a CSV file: ${SMALL} and ${LARGE} records`, async () => {
		const emulator = await startChildEmulator();
		const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'export-file-bench-'));
		try {
			await emulator.seedFlowRequests(FLOW, Math.max(LARGE, SMALL), SEED);
			await setBinaryMode('filesystem');
			const sections = [
				machine(),
				'Filesystem binary mode (n8n-core BinaryDataService, filesystem-v2 over a temp folder).',
			];
			if (PARTS.has('speed')) sections.push(await speedPart(emulator.credentials));
			if (PARTS.has('raw')) sections.push(await rawPart(emulator.credentials, folder));
			if (PARTS.has('rss')) sections.push(rssPart(emulator.credentials, folder));
			sections.push(
				'Targets: CSV File ÷ Items per record ≤ 1.2 at 100k; peak RSS growth 1M ÷ 100k ≤ 1.5 and < 100 MB.',
			);
			console.log(sections.join('\n\n'));
		} finally {
			clearFiles(binaryStoragePath());
			fs.rmSync(folder, { recursive: true, force: true });
			await emulator.close();
		}
	});
}
