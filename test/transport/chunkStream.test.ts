/**
 * The file body n8n's binary modes read (chunkStream): its listeners behave as a Node stream's,
 * also when one listener removes another during an event.
 */
import { chunkStream } from '../../nodes/shared/binary/storeFile';

async function* oneChunk() {
	yield Buffer.from('file');
}

it('a once listener removed during its own event leaves the listeners of other events in place', async () => {
	const stream = chunkStream(oneChunk());
	const seen: string[] = [];
	const second = () => seen.push('second end');
	const ended = new Promise<void>((resolve) =>
		stream.once('end', () => {
			stream.off('end', second);
			resolve();
		}),
	);
	stream.once('end', second);
	stream.on('data', (chunk) => seen.push(`data ${String(chunk)}`));
	stream.on('close', () => seen.push('close'));
	await ended;
	expect(seen).toEqual(['data file', 'second end', 'close']);
});
