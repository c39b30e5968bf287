/* eslint-disable @n8n/community-nodes/no-restricted-imports -- test code: runs in jest, never in n8n */
/**
 * Export Requests › Output › CSV File / JSON Lines File, through n8n's engine against the
 * emulator: the file holds exactly the records BotDojo exported (read back with a real CSV
 * parser), in both binary data modes; limit, dates and resume work as for items; a failed page
 * gives an error and no file.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

import { parse } from 'csv-parse/sync';
import type { IBinaryData, IDataObject } from 'n8n-workflow';

import {
	binaryStoragePath,
	readBinary,
	runNode,
	setBinaryMode,
	type BinaryMode,
} from '../helpers/engine';
import { BotDojoExportRequests } from '../../nodes/BotDojoExportRequests/BotDojoExportRequests.node';
import { useEmulator } from '../helpers/emulator';
import { expectedCsvRow } from '../helpers/exportCsv';
import { exportRequestsNode } from '../helpers/exportRequestsNode';

const env = useEmulator();

const FLOW = 'flow_export';
const START = Date.parse('2024-03-01T00:00:00.000Z');
const HEADER = [
	'flowRequestId',
	'flowId',
	'flowSessionId',
	'status',
	'userMessage',
	'answer',
	'errorMessage',
	'startTime',
	'endTime',
	'durationMs',
	'modified',
	'version',
];

/** [question, answer]: what a CSV must escape, non-ASCII text, and formula-like starts. */
const HOSTILE = [
	['Quote "this", please', 'He said "yes", then left.'],
	['Line one\nLine two\r\nLine three', 'Two lines,\nas asked'],
	['Grüße aus Köln — 日本語 🎉', 'Ça va très bien, merci ✓'],
	['=HYPERLINK("http://x.test","click")', '@SUM(1+1)'],
	['+1 555 0100, call me', '-2 degrees'],
	['\t=1+1', '\r=2+2'],
	// LibreOffice's "Trim spaces" at import strips the spaces before a formula, then runs it.
	[' =1+1', '\n\t@SUM(A1)'],
	['  indented, not a formula', '\u00a0+1 555 0100'],
	['\u0000=1+1', 'a plain answer'],
];

type EmulatorRecord = IDataObject & { id: string; status: string; modified: string };

/** Seeds `count` plain records, then the hostile ones, a minute apart; returns the exportable ones. */
function seed(count: number): EmulatorRecord[] {
	const plain = env.emu.seedFlowRequests(FLOW, count, {
		start: START,
		stepMs: 60_000,
		errorEvery: 7,
		runningEvery: 11,
	}) as EmulatorRecord[];
	const hostile = HOSTILE.map(
		([question, answer], i) =>
			env.emu.addRecord({
				flow_id: FLOW,
				body: { text_input: question },
				response: { text_output: answer },
				modified: new Date(START + (count + i) * 60_000).toISOString(),
			}) as EmulatorRecord,
	);
	return [...plain, ...hostile].filter((r) => r.status === 'complete' || r.status === 'error');
}

const exportNode = (parameters: IDataObject, extra: { continueOnFail?: boolean } = {}) =>
	exportRequestsNode(FLOW, parameters, extra);

async function exportFile(parameters: IDataObject) {
	const run = await runNode({ node: exportNode(parameters), credentials: env.credentials });
	expect(run.error).toBeUndefined();
	expect(run.items).toHaveLength(1);
	const [item] = run.items;
	const binary = item.binary?.data as IBinaryData;
	return { json: item.json, binary, text: (await readBinary(binary)).toString('utf8') };
}

function csvOf(text: string): string[][] {
	return parse(text, { bom: true, relax_column_count: false }) as string[][];
}

describe.each<BinaryMode>(['filesystem', 'memory'])('Export to a file, %s binary mode', (mode) => {
	beforeAll(async () => await setBinaryMode(mode));

	it('CSV: every exported record once, in order, its cells as the record holds them', async () => {
		const expected = seed(2500);
		const { json, binary, text } = await exportFile({
			output: 'csvFile',
			returnAll: true,
			options: { pageSize: 1000 },
		});

		const [header, ...rows] = csvOf(text);
		expect(header).toEqual(HEADER);
		expect(rows).toEqual(expected.map(expectedCsvRow));
		expect(text.endsWith('\r\n')).toBe(true);
		expect(binary).toMatchObject({ fileName: `flow-requests-${FLOW}.csv`, mimeType: 'text/csv' });
		if (mode === 'filesystem') expect(binary.id).toMatch(/^filesystem/);
		expect(json).toMatchObject({
			records: expected.length,
			firstModified: expected[0].modified,
			lastModified: expected.at(-1)!.modified,
			hasMore: false,
		});
		expect(env.emu.requestsTo('export')).toHaveLength(Math.ceil(expected.length / 1000));
	});

	it('JSON Lines: each line is one whole record as BotDojo exported it', async () => {
		const expected = seed(1200);
		const { json, binary, text } = await exportFile({
			output: 'jsonLinesFile',
			returnAll: true,
			simplify: false,
			fileName: 'all.jsonl',
			options: { pageSize: 500 },
		});
		const lines = text.split('\n');
		expect(lines.pop()).toBe('');
		expect(lines.map((line) => JSON.parse(line) as unknown)).toEqual(
			JSON.parse(JSON.stringify(expected)),
		);
		expect(binary.fileName).toBe('all.jsonl');
		expect(json.records).toBe(expected.length);
	});
});

describe('Export to a file', () => {
	beforeAll(async () => await setBinaryMode('filesystem'));

	it('CSV: formula-like text, after leading white space too, starts with an apostrophe, so a spreadsheet shows it as text', async () => {
		seed(0);
		const { text } = await exportFile({ output: 'csvFile', returnAll: true });
		const cells = csvOf(text).slice(1);
		const [userMessage, answer] = [HEADER.indexOf('userMessage'), HEADER.indexOf('answer')];
		expect(cells.map((row) => [row[userMessage], row[answer]]).slice(3)).toEqual([
			[`'=HYPERLINK("http://x.test","click")`, `'@SUM(1+1)`],
			[`'+1 555 0100, call me`, `'-2 degrees`],
			[`'\t=1+1`, `'\r=2+2`],
			[`' =1+1`, `'\n\t@SUM(A1)`],
			['  indented, not a formula', `'\u00a0+1 555 0100`],
			[`'\u0000=1+1`, 'a plain answer'],
		]);
		expect(text).toContain('"\'=HYPERLINK(""http://x.test"",""click"")"');
	});

	it('CSV with Add Byte Order Mark starts with the UTF-8 BOM for Excel', async () => {
		seed(3);
		const { text } = await exportFile({
			output: 'csvFile',
			returnAll: true,
			options: { excelBom: true },
		});
		expect(text.startsWith('\uFEFFflowRequestId,')).toBe(true);
	});

	it('keeps Limit, From/To Date and Start Cursor: two runs give the range once, in order', async () => {
		const expected = seed(300).filter(
			(r) => r.modified >= '2024-03-01T01:00:00.000Z' && r.modified <= '2024-03-01T04:00:00.000Z',
		);
		const part = {
			output: 'csvFile',
			limit: 100,
			options: {
				pageSize: 30,
				fromDate: '2024-03-01T01:00:00Z',
				toDate: '2024-03-01T04:00:00Z',
			},
		};
		const first = await exportFile(part);
		expect(first.json).toMatchObject({ records: 100, hasMore: true });
		const second = await exportFile({
			...part,
			options: { ...part.options, startCursor: first.json.cursor },
		});
		expect(second.json).toMatchObject({ records: expected.length - 100, hasMore: false });
		const rows = [...csvOf(first.text).slice(1), ...csvOf(second.text).slice(1)];
		expect(rows).toEqual(expected.map(expectedCsvRow));
		expect(second.json.firstModified).toBe(expected[100].modified);
	});

	it('a page that fails mid-export fails the node: no item, no file left behind', async () => {
		seed(1000);
		const storage = binaryStoragePath();
		const filesBefore = listFiles(storage);
		env.emu.injectFault('500', { endpoint: 'export', skip: 3 });

		const { items, error } = await runNode({
			node: exportNode({ output: 'csvFile', returnAll: true, options: { pageSize: 100 } }),
			credentials: env.credentials,
		});
		expect(items).toEqual([]);
		expect(error?.message).toMatch(/BotDojo/);
		expect(env.emu.requestsTo('export').map((r: { status?: number }) => r.status)).toEqual([
			200, 200, 200, 500,
		]);
		expect(listFiles(storage)).toEqual(filesBefore);
	});

	it.each([
		['fails', '500', /BotDojo could not handle the request/],
		// The page's answer stops halfway (test/faults/halfAnswers.test.ts has more).
		['breaks off', 'whole-answer-drop', /^The connection to BotDojo broke before its whole answer/],
	])(
		'with Continue On Fail, a page that %s gives an error item without a file',
		async (_, fault, said) => {
			seed(500);
			env.emu.injectFault(fault, { endpoint: 'export', skip: 2 });
			const { items, error } = await runNode({
				node: exportNode(
					{ output: 'jsonLinesFile', returnAll: true, options: { pageSize: 100 } },
					{ continueOnFail: true },
				),
				credentials: env.credentials,
			});
			expect(error).toBeUndefined();
			expect(items).toHaveLength(1);
			expect(items[0].binary).toBeUndefined();
			expect(items[0].json.error).toEqual(expect.stringMatching(said));
		},
	);
});

describe('Return All in Items mode', () => {
	it('shows a notice in the panel pointing to the file outputs and to Limit + Start Cursor', () => {
		const { description } = new BotDojoExportRequests();
		const notices = description.properties.filter((p) => p.type === 'notice');
		expect(notices).toHaveLength(1);
		const [notice] = notices;
		expect(notice.displayName).toMatch(/CSV File.*JSON Lines File.*Limit and Start Cursor/s);
		expect(notice.displayOptions?.show).toEqual({
			operation: ['export'],
			output: ['items'],
			returnAll: [true],
		});
	});
});

function listFiles(folder: string): string[] {
	if (!fs.existsSync(folder)) return [];
	return (fs.readdirSync(folder, { recursive: true }) as string[])
		.filter((name) => fs.statSync(path.join(folder, name)).isFile())
		.sort();
}
