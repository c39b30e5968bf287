'use strict';
/**
 * Demo 2 (nightly export) in the real n8n: Export Requests › Output › CSV File writes
 * yesterday's requests straight into a file named for that day. The file is read back with a
 * real CSV parser and compared with the emulator's records, cell by cell: quotes, commas, line
 * breaks, non-ASCII text, and formula-like text made safe.
 */
const assert = require('node:assert/strict');
const { test } = require('node:test');

const { parse } = require('csv-parse/sync');

const { expectedCsvRow } = require('../helpers/exportCsv');

const DAY_MS = 86_400_000;

module.exports = function registerExportChecks(env) {
	test(
		"demo 2 (nightly export): yesterday's requests in a CSV file named for that day",
		{ timeout: 180_000 },
		async () => {
			const today = new Date();
			today.setUTCHours(0, 0, 0, 0);
			const yesterday = today.getTime() - DAY_MS;
			const expected = [...env.emu.records.values()]
				.filter((r) => r.flow_id === 'flow_echo' && ['complete', 'error'].includes(r.status))
				.filter((r) => Date.parse(r.modified) >= yesterday && Date.parse(r.modified) < today)
				.sort((a, b) => a.modified.localeCompare(b.modified) || a.id.localeCompare(b.id));
			assert.ok(expected.length >= 5, "the demo data holds yesterday's requests");
			const mark = env.emu.requests.length;

			const { outputs } = await env.execute('bdDemoNightlyExport');

			const [item] = outputs['Export yesterday to CSV'];
			const file = item.binary.data;
			const day = new Date(yesterday).toISOString().slice(0, 10);
			assert.equal(file.fileName, `flow-requests-${day}.csv`);
			assert.equal(file.mimeType, 'text/csv');
			const bytes = env.readBinary(file);
			assert.deepEqual([...bytes.subarray(0, 3)], [0xef, 0xbb, 0xbf], 'a UTF-8 BOM for Excel');
			const [header, ...rows] = parse(bytes.toString('utf8'), { bom: true });
			assert.equal(header[0], 'flowRequestId');
			assert.deepEqual(rows, expected.map(expectedCsvRow));
			const texts = rows.flatMap((row) => [row[4], row[5]]);
			for (const hostile of [
				'Quote "this", please',
				'Line one\nLine two\r\nLine three',
				'Grüße aus Köln — 日本語 🎉',
			]) {
				assert.ok(texts.includes(hostile), `the CSV holds ${JSON.stringify(hostile)}`);
			}
			assert.ok(texts.includes(`'=HYPERLINK("http://example.com","click")`));
			assert.deepEqual(
				{
					records: item.json.records,
					first: item.json.firstModified,
					last: item.json.lastModified,
				},
				{ records: expected.length, first: expected[0].modified, last: expected.at(-1).modified },
			);

			// The demo asked BotDojo for yesterday, 00:00 to 23:59:59.999 UTC. (The published
			// trigger of demo 6 polls flow_echo meanwhile, from its own mark.)
			const exports = env
				.requestsSince(mark, 'export')
				.filter((r) => Date.parse(r.body.params[3]) === yesterday);
			assert.equal(exports.length, 1);
			const [flowId, , , , toDate] = exports[0].body.params;
			assert.equal(flowId, 'flow_echo');
			assert.equal(Date.parse(toDate), today.getTime() - 1);
		},
	);
};
