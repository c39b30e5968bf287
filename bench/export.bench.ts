/* eslint-disable @n8n/community-nodes/no-restricted-globals, no-console -- benchmark code: runs in jest, never in n8n; it prints its figures */
/**
 * Export of 100k flow requests: BotDojo Export Requests (Return All, page size 1000) through
 * n8n's engine vs a linear raw cursor loop of `fetch` POSTs with the same bodies (each page
 * parsed once, its records kept), against one emulator in a child process (like a remote
 * BotDojo). Alternating rounds on the shared harness (bench/lib).
 */
import { runNode, type BotDojoCredentialData } from '../test/helpers/engine';
import { alternate, machine, report, startChildEmulator, type Sample } from './lib';

const FLOW = 'flow_bench';
const RECORDS = Number(process.env.EXPORT_RECORDS ?? 100_000);
const PAGE_SIZE = 1000;
const SEED = { start: Date.parse('2024-01-01T00:00:00Z'), stepMs: 1000 };

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

test(`export of ${RECORDS} flow requests: node vs linear raw cursor loop`, async () => {
	const emulator = await startChildEmulator();
	try {
		await emulator.seedFlowRequests(FLOW, RECORDS, SEED);
		const pairs = await alternate(
			async () => ({ records: await throughNode(emulator.credentials) }),
			async () => ({ records: await rawCursorLoop(emulator.credentials) }),
		);
		for (const pair of pairs) {
			if (pair.candidate.counts.records !== RECORDS) throw new Error('the node lost records');
		}
		const perRecordUs = (sample: Sample) => (sample.cpuMs * 1000) / RECORDS;
		console.log(
			[
				machine(),
				report(`Export of ${RECORDS} flow requests, page size ${PAGE_SIZE}`, pairs, {
					names: { candidate: 'node (engine)', baseline: 'raw fetch loop' },
					figures: [
						['records/s', (s) => (RECORDS / s.wallMs) * 1000, 0],
						['CPU µs per record', perRecordUs, 2],
					],
				}),
				'Target: node speed ≥ 0.85× raw, i.e. wall ms node ÷ raw ≤ 1.18.',
			].join('\n'),
		);
	} finally {
		await emulator.close();
	}
});
