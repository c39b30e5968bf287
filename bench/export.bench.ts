/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals, no-console, @n8n/community-nodes/no-dangerous-functions -- benchmark code: runs in jest, never in n8n; it starts the emulator in a child process and prints its figures */
/**
 * Export of 100k flow requests: BotDojo Export Requests (Return All, page size 1000) through
 * n8n's engine vs a raw cursor loop of `fetch` POSTs with the same bodies, against the same
 * emulator, in one run. Rounds alternate raw and node; medians are reported.
 *
 * Two set-ups: the emulator in a child process (like a remote BotDojo: its JSON encoding and
 * garbage do not land in the measured heap or event loop), and in this process (server and
 * client share one thread and one heap, which charges the server's work to both sides).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';

import { startEmulator } from '../emulator';
import { runNode, type BotDojoCredentialData } from '../test/helpers/engine';

const FLOW = 'flow_bench';
const RECORDS = 100_000;
const PAGE_SIZE = 1000;
const ROUNDS = 3;
const SEED = { start: Date.parse('2024-01-01T00:00:00Z'), stepMs: 1000 };

interface Emulated {
	credentials: BotDojoCredentialData;
	exportRequests(): Promise<number>;
	close(): Promise<void>;
}

interface Measure {
	ms: number;
	cpuMs: number;
	records: number;
	requests: number;
	peakHeapMb: number;
}

/** Starts the emulator in a child process with the records seeded; talks to it over IPC. */
async function childEmulator(): Promise<Emulated> {
	const emulatorPath = path.resolve(__dirname, '../emulator');
	const script = `
		const { startEmulator } = require(${JSON.stringify(emulatorPath)});
		startEmulator({ port: 0 }).then((emu) => {
			emu.seedFlowRequests(${JSON.stringify(FLOW)}, ${RECORDS}, ${JSON.stringify(SEED)});
			process.on('message', (message) => {
				if (message === 'count') process.send({ count: emu.requestsTo('export').length });
				if (message === 'close') emu.close().then(() => process.exit(0));
			});
			process.send({ ready: { baseUrl: emu.baseUrl, accountId: emu.accountId,
				projectId: emu.projectId, apiKey: emu.keys.project } });
		});`;
	const child: ChildProcess = spawn(process.execPath, ['-e', script], {
		stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
	});
	// One answer per question, in order; an early exit fails whoever is waiting.
	const waiting: Array<{ resolve(m: Record<string, unknown>): void; reject(e: Error): void }> = [];
	child.on('message', (message) => waiting.shift()?.resolve(message as Record<string, unknown>));
	child.once('exit', (code) => {
		for (const waiter of waiting.splice(0))
			waiter.reject(new Error(`emulator exited with ${code}`));
	});
	const next = () =>
		new Promise<Record<string, unknown>>((resolve, reject) => waiting.push({ resolve, reject }));
	const { ready } = await next();
	return {
		credentials: ready as BotDojoCredentialData,
		async exportRequests() {
			const answer = next();
			child.send('count');
			return (await answer).count as number;
		},
		async close() {
			const exited = new Promise((resolve) => child.once('exit', resolve));
			child.send('close');
			await exited;
		},
	};
}

async function inProcessEmulator(): Promise<Emulated> {
	const emu = await startEmulator({ port: 0 });
	emu.seedFlowRequests(FLOW, RECORDS, SEED);
	return {
		credentials: {
			baseUrl: emu.baseUrl,
			accountId: emu.accountId,
			projectId: emu.projectId,
			apiKey: emu.keys.project,
		},
		exportRequests: async () => emu.requestsTo('export').length,
		close: async () => await emu.close(),
	};
}

function collectGarbage() {
	(global as { gc?: () => void }).gc?.();
}

/** Runs `work` once, sampling the V8 heap every 5 ms; the peak is reported above the baseline. */
async function measure(emulated: Emulated, work: () => Promise<number>): Promise<Measure> {
	collectGarbage();
	const baseline = process.memoryUsage().heapUsed;
	let peak = baseline;
	const sampler = setInterval(() => {
		peak = Math.max(peak, process.memoryUsage().heapUsed);
	}, 5);
	const requestsBefore = await emulated.exportRequests();
	const cpuBefore = process.cpuUsage();
	const started = process.hrtime.bigint();
	const records = await work();
	const ms = Number(process.hrtime.bigint() - started) / 1e6;
	const cpu = process.cpuUsage(cpuBefore);
	peak = Math.max(peak, process.memoryUsage().heapUsed);
	clearInterval(sampler);
	return {
		ms,
		cpuMs: (cpu.user + cpu.system) / 1000,
		records,
		requests: (await emulated.exportRequests()) - requestsBefore,
		peakHeapMb: (peak - baseline) / 2 ** 20,
	};
}

/** What a hand-written client does: POST each page, parse it, keep its records, follow the cursor. */
async function rawCursorLoop(credentials: BotDojoCredentialData): Promise<number> {
	const url = `${credentials.baseUrl}/accounts/${credentials.accountId}/projects/${credentials.projectId}/flow_requests/export`;
	const records: unknown[] = [];
	let cursor: string | null = null;
	for (;;) {
		const response = await fetch(url, {
			method: 'POST',
			headers: { Authorization: credentials.apiKey, 'Content-Type': 'application/json' },
			body: JSON.stringify({ params: [FLOW, cursor, PAGE_SIZE] }),
		});
		if (!response.ok) throw new Error(`export answered ${response.status}`);
		const page = (await response.json()) as {
			results: unknown[];
			nextCursor: string | null;
			hasMore: boolean;
		};
		for (const record of page.results) records.push(record);
		if (!page.hasMore) return records.length;
		cursor = page.nextCursor;
	}
}

async function throughNode(credentials: BotDojoCredentialData): Promise<number> {
	const { items, error } = await runNode({
		node: {
			type: 'botDojoExportRequests',
			parameters: {
				operation: 'export',
				flowId: FLOW,
				returnAll: true,
				options: { pageSize: PAGE_SIZE },
			},
		},
		credentials: { main: credentials },
	});
	if (error) throw new Error(`node failed: ${error.message}`);
	return items.length;
}

function median(values: number[]): number {
	const sorted = [...values].sort((a, b) => a - b);
	return sorted[Math.floor(sorted.length / 2)];
}

async function compare(setup: string, emulated: Emulated) {
	// Warm-up: JIT, module loading, sockets.
	await rawCursorLoop(emulated.credentials);
	await throughNode(emulated.credentials);
	const node: Measure[] = [];
	const raw: Measure[] = [];
	for (let round = 0; round < ROUNDS; round++) {
		raw.push(await measure(emulated, () => rawCursorLoop(emulated.credentials)));
		node.push(await measure(emulated, () => throughNode(emulated.credentials)));
	}
	for (const run of [...node, ...raw]) {
		if (run.records !== RECORDS) throw new Error(`exported ${run.records} of ${RECORDS}`);
	}
	const row = (variant: string, runs: Measure[]) => {
		const ms = median(runs.map((r) => r.ms));
		return {
			setup,
			variant,
			'median ms': Math.round(ms),
			'records/s': Math.round((RECORDS / ms) * 1000),
			'client CPU ms': Math.round(median(runs.map((r) => r.cpuMs))),
			requests: median(runs.map((r) => r.requests)),
			'peak heap MB': Math.round(median(runs.map((r) => r.peakHeapMb))),
			'runs ms': runs.map((r) => Math.round(r.ms)).join(' / '),
		};
	};
	const nodeMs = median(node.map((r) => r.ms));
	const rawMs = median(raw.map((r) => r.ms));
	const heap = (runs: Measure[]) => median(runs.map((r) => r.peakHeapMb));
	return {
		rows: [row('node (engine)', node), row('raw fetch loop', raw)],
		ratio: `${setup}: node speed = ${(rawMs / nodeMs).toFixed(2)}x raw (target >= 0.8x); node peak heap = ${(heap(node) / heap(raw)).toFixed(2)}x raw`,
	};
}

test('export of 100k flow requests: node vs raw cursor loop', async () => {
	const results = [];
	for (const [setup, start] of [
		['emulator in a child process', childEmulator],
		['emulator in this process', inProcessEmulator],
	] as const) {
		const emulated = await start();
		try {
			results.push(await compare(setup, emulated));
		} finally {
			await emulated.close();
		}
	}
	console.log(
		`Export of ${RECORDS} flow requests, page size ${PAGE_SIZE}, ${ROUNDS} alternating rounds, medians. ` +
			'Peak heap: V8 heap used above the level after a GC, sampled every 5 ms.',
	);
	console.table(results.flatMap((result) => result.rows));
	console.log(results.map((result) => result.ratio).join('\n'));
});
