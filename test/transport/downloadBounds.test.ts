/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals -- test code: runs in jest, never in n8n */
/**
 * The signed link's file is bounded in size and in time (README, "Limits"): a storage that sends
 * without end, or a byte at a time, is cut off with an error naming the bound, and n8n stores no
 * part of the file. A file of exactly the record's size arrives whole.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

import { DOWNLOAD_LIMITS } from '../../nodes/shared/transport/download';
import { binaryStoragePath, readBinary, runNode, setBinaryMode, startRun } from '../helpers/engine';
import { useScriptedServer, type Answer } from './scriptedServer';

const botdojo = useScriptedServer();
const FLOOD_BYTES = 16 * 1024 * 1024;
const defaults = { ...DOWNLOAD_LIMITS };

afterEach(() => Object.assign(DOWNLOAD_LIMITS, defaults));

const nodeFor = (record: object) => ({
	type: 'botDojoUploadDocument',
	parameters: {
		operation: 'getDownloadLink',
		documentSource: 'record',
		documentRecord: JSON.stringify({ id: 'doc_1', logicalPath: 'docs/a.bin', ...record }),
		downloadFile: true,
	},
});

/** BotDojo gives a link at its own origin; `file` answers the download. */
function serve(file: Answer): void {
	botdojo.answer = (request, res) => {
		if (request.path.startsWith('/files/')) return file(request, res);
		res.writeHead(200, { 'content-type': 'application/json' });
		res.end(JSON.stringify({ results: `${botdojo.origin}/files/a.bin?sig=1` }));
	};
}

/** Writes 64 KiB chunks as fast as they are read until the client hangs up (or 16 MiB, so that
 *  a download without bounds ends with a file rather than filling this machine's memory). */
function flood(sent: { bytes: number }): Answer {
	const chunk = Buffer.alloc(64 * 1024, 1);
	return (_, res) => {
		res.writeHead(200, { 'content-type': 'application/octet-stream' });
		const more = () => {
			let room = true;
			while (!res.destroyed && sent.bytes < FLOOD_BYTES && room) {
				room = res.write(chunk);
				sent.bytes += chunk.length;
			}
			if (sent.bytes >= FLOOD_BYTES) res.end();
		};
		res.on('drain', more);
		more();
	};
}

const listFiles = (folder: string): string[] =>
	fs.existsSync(folder)
		? (fs.readdirSync(folder, { recursive: true }) as string[])
				.filter((name) => fs.statSync(path.join(folder, name)).isFile())
				.sort()
		: [];

describe.each(['memory', 'filesystem'] as const)('a signed-link download (%s mode)', (mode) => {
	beforeAll(async () => await setBinaryMode(mode));

	it("a flood past the record's size plus 1 MiB is refused; no file is stored", async () => {
		const sent = { bytes: 0 };
		serve(flood(sent));
		const storage = mode === 'filesystem' ? binaryStoragePath() : '';
		const filesBefore = storage ? listFiles(storage) : [];
		const { items, error } = await runNode({
			node: nodeFor({ sizeBytes: 1000 }),
			credentials: botdojo.credentials,
		});
		// (the error first: a diff of a stored 16 MiB file would take long to print)
		expect(error?.message).toBe(
			'The file at the download link is larger than 1,049,576 bytes and was refused; nothing was stored (the size BotDojo gave for the document, 1,000 bytes, plus 1,048,576 bytes). Check the document in BotDojo.',
		);
		expect(items).toEqual([]);
		expect(sent.bytes).toBeLessThan(FLOOD_BYTES); // hung up, not read on
		if (storage) expect(listFiles(storage)).toEqual(filesBefore);
	}, 20_000);

	it('a flood with no size in the record is refused past the fixed maximum', async () => {
		DOWNLOAD_LIMITS.fileBytes = 2 * 1024 * 1024;
		serve(flood({ bytes: 0 }));
		const { items, error } = await runNode({ node: nodeFor({}), credentials: botdojo.credentials });
		expect(error?.message).toMatch(
			/^The file at the download link is larger than 2,097,152 bytes and was refused; nothing was stored \(the largest file downloaded when BotDojo gives no size\)/,
		);
		expect(items).toEqual([]);
	}, 20_000);

	it('a trickle past the total time is ended; the error names the bound', async () => {
		DOWNLOAD_LIMITS.baseMs = 1000;
		DOWNLOAD_LIMITS.bytesPerSecond = 1_000_000; // 1 s + 100 KiB (+ slack) at 1 MB/s
		const closed = { count: 0 };
		serve((_, res) => {
			res.writeHead(200, { 'content-type': 'application/octet-stream' });
			res.on('close', () => closed.count++);
			let drops = 0;
			const drip = () => {
				if (res.destroyed) return;
				// 12 bytes in 6 s, then the end: a download without a time bound succeeds.
				if (++drops > 12) return void res.end();
				res.write('x');
				void new Promise((resolve) => setTimeout(resolve, 500)).then(drip);
			};
			drip();
		});
		const { items, error } = await runNode({
			node: nodeFor({ sizeBytes: 100 * 1024 }),
			credentials: botdojo.credentials,
		});
		expect(error?.message).toMatch(
			/^The file at the download link did not arrive within 2 s and the download was ended; nothing was stored \(the longest a file of up to 1,150,976 bytes may take: 1 s plus 1 s per 1,000,000 bytes\)/,
		);
		expect(items).toEqual([]);
		await new Promise((resolve) => setTimeout(resolve, 200));
		expect(closed.count).toBe(1); // the storage's connection was hung up
	}, 20_000);

	it('Stop ends a trickle within its time bound at once; the storage is hung up', async () => {
		const closed = { count: 0 };
		serve((_, res) => {
			res.writeHead(200, { 'content-type': 'application/octet-stream' });
			res.on('close', () => closed.count++);
			const drip = () => {
				if (res.destroyed) return;
				res.write('x');
				void new Promise((resolve) => setTimeout(resolve, 200)).then(drip);
			};
			drip();
		});
		const run = startRun({ node: nodeFor({}), credentials: botdojo.credentials });
		setTimeout(() => run.cancel(), 1000);
		const { items, error } = await run.result;
		// Stop's message, not the time bound's (60 s + 1 GiB at 64 KiB/s): Stop ended it.
		expect(error?.message).toMatch(/canceled$/);
		// The same words in every binary mode (filesystem mode read the body: it said "canceled").
		expect(error?.message).toBe('The download was canceled');
		expect(items).toEqual([]);
		await new Promise((resolve) => setTimeout(resolve, 200));
		expect(closed.count).toBe(1);
	}, 20_000);

	it('a file of exactly the size BotDojo gave downloads intact', async () => {
		const bytes = Buffer.from(Array.from({ length: 300_000 }, (_, at) => (at * 7) % 256));
		serve((_, res) => {
			res.writeHead(200, { 'content-type': 'application/octet-stream' });
			res.end(bytes);
		});
		const { items, error } = await runNode({
			node: nodeFor({ sizeBytes: bytes.length }),
			credentials: botdojo.credentials,
		});
		expect(error).toBeUndefined();
		expect(items).toHaveLength(1);
		const file = items[0].binary?.data;
		expect(file).toBeDefined();
		expect((await readBinary(file!)).equals(bytes)).toBe(true);
	}, 20_000);
});
