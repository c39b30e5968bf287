/* eslint-disable @n8n/community-nodes/no-restricted-globals -- test code: runs in jest, never in n8n */
/**
 * Files under n8n's database binary mode (queue mode's default in n8n 2.x), its per-file cap
 * lowered to 1 MiB as an admin would (N8N_BINARY_DATA_DATABASE_MAX_FILE_SIZE, read by n8n-core's
 * BinaryDataConfig): a file within it is stored; Export to a file and Download File beyond it fail
 * with an error naming the cap, the variable and the way around it, and store no file.
 */
import { randomBytes } from 'node:crypto';

import type { IBinaryData } from 'n8n-workflow';

import { databaseFileCount, readBinary, runNode, setBinaryMode } from '../helpers/engine';
import { useEmulator } from '../helpers/emulator';
import { exportRequestsNode } from '../helpers/exportRequestsNode';
import { linkNode, uploadThroughNode } from '../uploadDocument/documents';

process.env.N8N_BINARY_DATA_DATABASE_MAX_FILE_SIZE = '1';

const env = useEmulator();
const FLOW = 'flow_export';
const START = Date.parse('2024-03-01T00:00:00.000Z');

/** `count` records of about 2 kB each (a CSV row of ~2 kB; 600 of them pass 1 MiB). */
function seedLong(count: number): void {
	for (let i = 0; i < count; i++)
		env.emu.addRecord({
			flow_id: FLOW,
			body: { text_input: `question ${i}` },
			response: { text_output: `answer ${i} `.padEnd(2000, 'x') },
			modified: new Date(START + i * 60_000).toISOString(),
		});
}

const CAP_ERROR =
	/^The file "flow-requests-flow_export\.(csv|jsonl)" is larger than the 1 MiB n8n keeps per file$/;

beforeAll(async () => await setBinaryMode('database'));

describe('Export to a file, database binary mode, cap 1 MiB', () => {
	it('a file within the cap is stored in the database and reads back whole', async () => {
		seedLong(300);
		const { items, error } = await runNode({
			node: exportRequestsNode(FLOW, { output: 'jsonLinesFile', returnAll: true }),
			credentials: env.credentials,
		});
		expect(error).toBeUndefined();
		const binary = items[0].binary?.data as IBinaryData;
		expect(binary.id).toMatch(/^database:/);
		const lines = (await readBinary(binary)).toString('utf8').trimEnd().split('\n');
		expect(lines).toHaveLength(300);
		expect(JSON.parse(lines[299])).toMatchObject({ userMessage: 'question 299' });
	});

	it.each(['csvFile', 'jsonLinesFile'])(
		'%s beyond the cap: the error names the cap, the variable and the way around; no file',
		async (output) => {
			seedLong(700);
			const filesBefore = databaseFileCount();
			const { items, error } = await runNode({
				node: exportRequestsNode(FLOW, { output, returnAll: true }),
				credentials: env.credentials,
			});
			expect(items).toEqual([]);
			expect(error?.message).toMatch(CAP_ERROR);
			expect(error?.description).toMatch(
				/N8N_BINARY_DATA_DATABASE_MAX_FILE_SIZE MiB each \(here 1;/,
			);
			expect(error?.description).toMatch(/smaller date range \(From Date \/ To Date\)/);
			expect(error?.description).toMatch(/Output: Items with Include Cursor/);
			expect(databaseFileCount()).toBe(filesBefore);
		},
	);

	it('with Continue On Fail: an error item with the same message and no file', async () => {
		seedLong(700);
		const { items, error } = await runNode({
			node: exportRequestsNode(
				FLOW,
				{ output: 'csvFile', returnAll: true },
				{ continueOnFail: true },
			),
			credentials: env.credentials,
		});
		expect(error).toBeUndefined();
		expect(items).toHaveLength(1);
		expect(items[0].binary).toBeUndefined();
		expect(items[0].json.error).toMatch(CAP_ERROR);
	});
});

describe('Download File, database binary mode, cap 1 MiB', () => {
	it('a document beyond the cap: the error names the cap and the link as the way around; no file', async () => {
		// The upload's own input file would be refused by the cap too: it is made in memory mode.
		await setBinaryMode('memory');
		const content = randomBytes(1024 * 1024 + 1);
		await uploadThroughNode(env, content, 'data/big.bin', 'big.bin', 'application/octet-stream');
		await setBinaryMode('database');
		const filesBefore = databaseFileCount();
		const { items, error } = await runNode({
			node: linkNode({ logicalPath: 'data/big.bin', downloadFile: true }),
			credentials: env.credentials,
		});
		expect(items).toEqual([]);
		expect(error?.message).toBe('The file "big.bin" is larger than the 1 MiB n8n keeps per file');
		expect(error?.description).toMatch(/N8N_BINARY_DATA_DATABASE_MAX_FILE_SIZE/);
		expect(error?.description).toMatch(/Turn off Download File and hand the link \(url\)/);
		expect(databaseFileCount()).toBe(filesBefore);
	});
});
