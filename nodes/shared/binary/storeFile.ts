/**
 * Every file a node outputs goes into n8n's binary data here. n8n's database binary mode (queue
 * mode's default in n8n 2.x) keeps at most N8N_BINARY_DATA_DATABASE_MAX_FILE_SIZE MiB per file and
 * refuses a larger one before storing anything. Community nodes may not read the environment, so
 * the cap is known from n8n's own refusal, reworded here with the way around it.
 */
import type { IExecuteFunctions } from 'n8n-workflow';

import { nodeError } from '../transport/errors';

/**
 * A file body for n8n's `prepareBinaryData`, made of chunks as they come (community nodes may not
 * import `stream`). Filesystem mode writes it as an async iterable, chunk after chunk, never whole.
 * Modes that keep a file in one piece (memory, database, S3) read it through `data`/`end`/`error`/
 * `close` listeners (n8n-core's `binaryToBuffer`).
 */
type Listener = (value?: unknown) => void;
type On = (event: string, listener: Listener) => ChunkStream;

interface ChunkStream
	extends AsyncIterable<Buffer>,
		Record<'on' | 'once' | 'off' | 'removeListener', On> {
	destroy(): void;
}

export function chunkStream(chunks: AsyncIterable<Buffer>) {
	const listeners: Array<{ event: string; listener: Listener; once: boolean }> = [];
	let flowing = false;
	let destroyed = false;
	const emit = (event: string, value?: unknown) => {
		for (const entry of listeners.filter((l) => l.event === event)) {
			// A listener before may have removed it already: splice(-1) would drop another.
			const at = entry.once ? listeners.indexOf(entry) : -1;
			if (at >= 0) listeners.splice(at, 1);
			entry.listener(value);
		}
	};
	/** Emits the chunks once, to the listeners; `destroy` stops it. */
	const emitAll = async () => {
		if (flowing) return;
		flowing = true;
		try {
			for await (const chunk of chunks) {
				if (destroyed) return;
				emit('data', chunk);
			}
			emit('end');
			emit('close');
		} catch (error) {
			emit('error', error);
		}
	};
	const add = (event: string, listener: Listener, once: boolean) => {
		listeners.push({ event, listener, once });
		// Like a Node stream, a `data` listener starts the flow (after the caller's other listeners).
		if (event === 'data') void Promise.resolve().then(emitAll);
		return stream;
	};
	const remove = (event: string, listener: Listener) => {
		const index = listeners.findIndex((l) => l.event === event && l.listener === listener);
		if (index >= 0) listeners.splice(index, 1);
		return stream;
	};
	const stream: ChunkStream = {
		[Symbol.asyncIterator]: () => chunks[Symbol.asyncIterator](),
		on: (event, listener) => add(event, listener, false),
		once: (event, listener) => add(event, listener, true),
		off: remove,
		removeListener: remove,
		destroy: () => void (destroyed = true),
	};
	return stream;
}

/** A file body as n8n's helper takes it (a Buffer, or a chunkStream cast to its type). */
type FileBody = Parameters<IExecuteFunctions['helpers']['prepareBinaryData']>[0];

/** n8n-core's FileTooLargeError: "…exceeds the max size limit of 512 MB set for `database` mode…". */
const DATABASE_CAP = /exceeds the max size limit of ([\d.]+) MB set for `database` mode/;

interface FileToStore {
	fileName: string;
	mimeType: string;
	itemIndex: number;
	/** What the user can do instead, in the node's own terms. */
	wayAround: string;
}

/** Stores `body`: whole, or its chunks as they come (written chunk by chunk: chunkStream). */
export async function storeFile(
	ctx: IExecuteFunctions,
	body: Buffer | AsyncIterable<Buffer>,
	file: FileToStore,
) {
	try {
		return await ctx.helpers.prepareBinaryData(
			Buffer.isBuffer(body) ? body : (chunkStream(body) as unknown as FileBody),
			file.fileName,
			file.mimeType,
		);
	} catch (error) {
		// n8n's refusal of a file beyond its database cap is reworded; any other error passed on.
		const cap = error instanceof Error ? DATABASE_CAP.exec(error.message)?.[1] : undefined;
		throw cap === undefined
			? error
			: nodeError(
					ctx,
					`The file "${file.fileName}" is larger than the ${cap} MiB n8n keeps per file`,
					{
						itemIndex: file.itemIndex,
						description: `n8n stores files in its database (queue mode's default binary data mode), at most N8N_BINARY_DATA_DATABASE_MAX_FILE_SIZE MiB each (here ${cap}; n8n allows up to 1024). ${file.wayAround} Or ask your n8n admin to raise N8N_BINARY_DATA_DATABASE_MAX_FILE_SIZE on every n8n process, or to use S3 binary storage.`,
					},
				);
	}
}
