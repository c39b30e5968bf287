'use strict';
/**
 * Files in queue mode: n8n 2.x keeps binary data in its database there, at most
 * N8N_BINARY_DATA_DATABASE_MAX_FILE_SIZE MiB per file (the suite sets 1 on the workers). Export to
 * CSV and JSON Lines, Upload Document and Download File run on the workers; the caller of a
 * Webhook gets the file, or the node's error through its error output and Respond to Webhook.
 */
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const { test } = require('node:test');

const { parse } = require('csv-parse/sync');

const queueReads = require('./reads');

const START = Date.parse('2024-05-01T00:00:00.000Z');

module.exports = function fileChecks(env, log) {
	const { executionsOf, workersThatRan } = queueReads(env);

	const post = async (path, body) =>
		await fetch(`${env.stack.n8n.webhookUrl}/webhook/${path}`, {
			method: 'POST',
			...(body instanceof FormData
				? { body }
				: { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
			signal: AbortSignal.timeout(180_000),
		});

	/** Requests of `flowId` as BotDojo exports them (finished ones), oldest first. */
	function seed(flowId, count, answerLength = 0) {
		return Array.from({ length: count }, (_, i) =>
			env.emu.addRecord({
				flow_id: flowId,
				body: { text_input: `question ${i}, with "quotes"` },
				response: { text_output: `answer ${i} `.padEnd(answerLength, 'x') },
				modified: new Date(START + i * 60_000).toISOString(),
			}),
		);
	}

	test(
		'Export to CSV and to JSON Lines on a worker (database binary mode): the caller gets the file with every record once, in order',
		{ timeout: 300_000 },
		async () => {
			const records = seed('flow_queue_export', 120);
			const ids = records.map((r) => r.id);
			const before = new Set(
				[
					...(await executionsOf('bdQueueExportCsv')),
					...(await executionsOf('bdQueueExportJsonl')),
				].map((e) => e.id),
			);

			const csv = await post('bd-queue-export-csv', { flowId: 'flow_queue_export' });
			const csvText = await csv.text();
			assert.equal(csv.status, 200, csvText.slice(0, 500));
			assert.match(csv.headers.get('content-type'), /^text\/csv/);
			const [header, ...rows] = parse(csvText, { bom: true });
			assert.equal(header[0], 'flowRequestId');
			assert.deepEqual(
				rows.map((row) => row[0]),
				ids,
			);
			const question = header.indexOf('userMessage');
			assert.equal(rows[7][question], 'question 7, with "quotes"');

			const lines = await post('bd-queue-export-jsonl', { flowId: 'flow_queue_export' });
			const linesText = await lines.text();
			assert.equal(lines.status, 200, linesText.slice(0, 500));
			const parsed = linesText
				.trimEnd()
				.split('\n')
				.map((line) => JSON.parse(line));
			assert.deepEqual(
				parsed.map((record) => record.flowRequestId),
				ids,
			);
			const executions = [
				...(await executionsOf('bdQueueExportCsv')),
				...(await executionsOf('bdQueueExportJsonl')),
			].filter((e) => !before.has(e.id));
			assert.equal(executions.length, 2);
			const perWorker = workersThatRan(executions.map((e) => e.id));
			assert.equal(
				perWorker.reduce((a, b) => a + b, 0),
				2,
				'both exports ran on a worker',
			);
			log(
				`export on workers (${perWorker.join(' + ')}): CSV ${csvText.length} bytes, JSON Lines ${linesText.length} bytes, ${ids.length} records each`,
			);
		},
	);

	test(
		"Export beyond the workers' 1 MiB per-file cap: the caller reads the node's error naming the cap and the way around",
		{ timeout: 300_000 },
		async () => {
			seed('flow_queue_big', 700, 2000);
			const response = await post('bd-queue-export-csv', { flowId: 'flow_queue_big' });
			const text = await response.text();
			assert.equal(response.status, 422, text.slice(0, 500));
			const { error, details } = JSON.parse(text);
			assert.equal(
				error,
				'The file "flow-requests-flow_queue_big.csv" is larger than the 1 MiB n8n keeps per file',
			);
			assert.match(details, /N8N_BINARY_DATA_DATABASE_MAX_FILE_SIZE MiB each \(here 1;/);
			assert.match(details, /smaller date range \(From Date \/ To Date\)/);
			log(`export beyond the cap, answered 422: ${error}`);
		},
	);

	test(
		'Upload Document, then Get Download Link with Download File, on a worker: the caller gets the same bytes back',
		{ timeout: 300_000 },
		async () => {
			const content = crypto.randomBytes(300 * 1024);
			const name = `queue-${Date.now()}.bin`;
			const form = new FormData();
			form.append('name', name);
			form.append('data', new Blob([content], { type: 'application/octet-stream' }), name);
			const response = await post('bd-queue-document', form);
			const body = Buffer.from(await response.arrayBuffer());
			assert.equal(response.status, 200, body.toString('utf8', 0, 500));
			const sha = (buffer) => crypto.createHash('sha256').update(buffer).digest('hex');
			assert.equal(body.length, content.length);
			assert.equal(sha(body), sha(content));
			const stored = [...env.emu.documents.values()].filter(
				(d) => d.latest.logicalPath === `queue/${name}`,
			);
			assert.equal(stored.length, 1, 'BotDojo holds the document once');
			assert.equal(sha(stored[0].data), sha(content));
			assert.equal(env.emu.requestsTo('download').length > 0, true);
			log(`upload + download on a worker: ${content.length} bytes back, byte-identical`);
		},
	);
};
