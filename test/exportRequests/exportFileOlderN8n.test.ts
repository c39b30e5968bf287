/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals -- test code: runs in jest, never in n8n */
/**
 * Export to a file on n8n 1.x, whose memory binary mode read a file body with
 * `body.pipe(concatStream(resolve))` (n8n-core's `binaryToBuffer` before 2.x): n8n-core's real
 * engine with that reader put back, into a writable that is full after every chunk. The file is
 * whole and in order, and the body waits for `drain` before it writes again (the next page is
 * not fetched into memory while the sink is full).
 */
import { Writable } from 'node:stream';

import { readBinary, runNode, setBinaryMode } from '../helpers/engine';
import { useEmulator } from '../helpers/emulator';
import { exportRequestsNode } from '../helpers/exportRequestsNode';

/** What the n8n 1.x reader saw: chunks written, times the sink was full, writes while full. */
const mockSink = { writes: 0, fullTimes: 0, writesWhileFull: 0 };

jest.mock('n8n-core/node_modules/@n8n/backend-network', () => {
	const actual = jest.requireActual<object>('n8n-core/node_modules/@n8n/backend-network');
	/** n8n 1.x: `body.pipe(concatStream(resolve))`, its sink with a 1-byte buffer and slow writes. */
	const pipeToBuffer = async (body: { pipe(sink: Writable): unknown }) =>
		await new Promise<Buffer>((resolve) => {
			const chunks: Buffer[] = [];
			let full = false;
			const sink = new Writable({
				highWaterMark: 1,
				write(chunk: Buffer, _encoding, done) {
					chunks.push(chunk);
					setTimeout(done, 5);
				},
				final(done) {
					resolve(Buffer.concat(chunks));
					done();
				},
			});
			const write = sink.write.bind(sink);
			sink.write = ((chunk: Buffer) => {
				mockSink.writes++;
				if (full) mockSink.writesWhileFull++;
				full = !write(chunk);
				if (full) mockSink.fullTimes++;
				return !full;
			}) as typeof sink.write;
			sink.on('drain', () => (full = false));
			body.pipe(sink);
		});
	return {
		...actual,
		binaryToBuffer: async (body: Buffer | { pipe(sink: Writable): unknown }) =>
			Buffer.isBuffer(body) ? body : await pipeToBuffer(body),
	};
});

const env = useEmulator();
const FLOW = 'flow_pipe';

it('n8n 1.x memory mode (the body piped): the whole file, in order, one page at a time', async () => {
	await setBinaryMode('memory');
	const records = env.emu.seedFlowRequests(FLOW, 250, {
		start: Date.parse('2024-05-01T00:00:00Z'),
		stepMs: 1000,
	}) as Array<{ id: string }>;
	const { items, error } = await runNode({
		node: exportRequestsNode(FLOW, {
			output: 'jsonLinesFile',
			returnAll: true,
			simplify: false,
			options: { pageSize: 25 },
		}),
		credentials: env.credentials,
	});
	expect(error).toBeUndefined();
	const text = (await readBinary(items[0].binary!.data)).toString('utf8');
	const ids = text
		.trimEnd()
		.split('\n')
		.map((line) => (JSON.parse(line) as { id: string }).id);
	expect(ids).toEqual(records.map((record) => record.id));
	// One chunk per page, the sink full after each, and never written to before it drained.
	expect(mockSink.writes).toBe(10);
	expect(mockSink.fullTimes).toBe(10);
	expect(mockSink.writesWhileFull).toBe(0);
});
