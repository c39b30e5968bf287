/**
 * A file body for n8n's `prepareBinaryData`, made of chunks as they come (community nodes may not
 * import `stream`). Filesystem mode writes it as an async iterable, chunk after chunk, never whole.
 * Modes that keep a file in one piece (memory, database, S3) read it through `data`/`end`/`error`/
 * `close` listeners (n8n 2.x) or `pipe` (n8n 1.x): both are served, so every mode works.
 */
type Listener = (value?: unknown) => void;
type On = (event: string, listener: Listener) => ChunkStream;
/** What n8n 1.x pipes the body into: a writable that asks for a wait (`drain`) when full. */
type Sink = {
	write(chunk: Buffer): boolean;
	end(): void;
	once(e: 'drain', f: () => void): unknown;
};

interface ChunkStream extends AsyncIterable<Buffer>, Record<'on' | 'once' | 'off', On> {
	removeListener: On;
	pipe<T extends Sink>(sink: T): T;
	destroy(): void;
}

export function chunkStream(chunks: AsyncIterable<Buffer>): ChunkStream {
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
	/** Reads the chunks once, for whichever consumer came first; `destroy` stops it. */
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
	const ended = () => ['end', 'close'].forEach((event) => emit(event));
	const emitAll = async () => await flow((chunk) => emit('data', chunk), ended);
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
		pipe: (sink) => {
			// Backpressure: after a write the sink could not take in, wait for its `drain`.
			const write = async (chunk: Buffer) => {
				if (!sink.write(chunk)) await new Promise<void>((resolve) => sink.once('drain', resolve));
			};
			void flow(write, () => sink.end());
			return sink;
		},
		destroy: () => void (destroyed = true),
	};
	return stream;
}
