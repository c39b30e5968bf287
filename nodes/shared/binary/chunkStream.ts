/**
 * A file body for n8n's `prepareBinaryData`, made of chunks as they come (community nodes may not
 * import `stream`). Filesystem mode writes it as an async iterable, chunk after chunk, never whole.
 * Modes that keep a file in one piece (memory, database, S3) read it through `data`/`end`/`error`/
 * `close` listeners (n8n-core's `binaryToBuffer`).
 */
type Listener = (value?: unknown) => void;
type On = (event: string, listener: Listener) => ChunkStream;

interface ChunkStream extends AsyncIterable<Buffer>, Record<'on' | 'once' | 'off', On> {
	removeListener: On;
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
	/** Emits the chunks once, to the listeners; `destroy` stops it. */
	const emitAll = async () => {
		if (flowing) return;
		flowing = true;
		try {
			for await (const chunk of chunks) {
				if (destroyed) return;
				emit('data', chunk);
			}
			['end', 'close'].forEach((event) => emit(event));
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
