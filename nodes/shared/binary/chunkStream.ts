/**
 * A file body for n8n's `prepareBinaryData`, made of chunks as they are produced (community
 * nodes may not import `stream`). In filesystem mode n8n hands it to `fs.writeFile`, which takes
 * any async iterable and writes chunk after chunk: the file is never held whole. Modes that keep
 * a file in one piece (memory, database, S3) collect a stream through its `data`/`end`/`error`
 * events (n8n 2.x) or `pipe` (n8n 1.x): both are served here, so the node works in every mode.
 */
type Listener = (value?: unknown) => void;

interface Sink {
	write(chunk: Buffer): boolean;
	end(): void;
	once(event: 'drain', listener: () => void): unknown;
}

export interface ChunkStream extends AsyncIterable<Buffer> {
	on(event: string, listener: Listener): ChunkStream;
	once(event: string, listener: Listener): ChunkStream;
	off(event: string, listener: Listener): ChunkStream;
	removeListener(event: string, listener: Listener): ChunkStream;
	pipe<T extends Sink>(sink: T): T;
	destroy(): void;
}

export function chunkStream(chunks: AsyncIterable<Buffer>): ChunkStream {
	const listeners: Array<{ event: string; listener: Listener; once: boolean }> = [];
	let flowing = false;
	let destroyed = false;

	const emit = (event: string, value?: unknown) => {
		for (const entry of listeners.filter((l) => l.event === event)) {
			if (entry.once) listeners.splice(listeners.indexOf(entry), 1);
			entry.listener(value);
		}
	};
	/** Reads the chunks once, for whichever consumer came first. */
	const flow = async (write: (chunk: Buffer) => Promise<void> | void, end: () => void) => {
		if (flowing) return;
		flowing = true;
		try {
			for await (const chunk of chunks) {
				if (destroyed) return;
				await write(chunk);
			}
			end();
		} catch (error) {
			emit('error', error);
		}
	};
	const add = (event: string, listener: Listener, once: boolean) => {
		listeners.push({ event, listener, once });
		// Like a Node stream, a `data` listener starts the flow (after the caller's other listeners).
		if (event === 'data') {
			void Promise.resolve().then(
				async () =>
					await flow(
						(chunk) => emit('data', chunk),
						() => {
							emit('end');
							emit('close');
						},
					),
			);
		}
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
		pipe(sink) {
			void flow(
				async (chunk) => {
					if (!sink.write(chunk)) await new Promise<void>((resolve) => sink.once('drain', resolve));
				},
				() => sink.end(),
			);
			return sink;
		},
		destroy() {
			destroyed = true;
		},
	};
	return stream;
}
