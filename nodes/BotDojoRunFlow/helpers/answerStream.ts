/**
 * A streamed run's answer as the reader iterates it, and its closing after the final line.
 *
 * The reader leaves its loop at the final line, usually just before the body's end arrives.
 * Leaving a Node stream's loop early destroys it with an AbortError whose stack trace n8n's
 * source maps format: in n8n 2.40.7 about 0.1 ms of CPU per run under a profiler, the largest
 * cost of the node's own code. Iterated with `destroyOnReturn: false`, the body is destroyed
 * here with no error made. n8n's helper (axios) wraps the HTTP body, so destroying it does not
 * close the connection; BotDojo ends it right after the final line, and the run waits for that
 * (a moment). A connection still open a second later (a server or proxy that holds it) is hung
 * up through the run's abort signal: axios ends its request on it, with an error of its own
 * (another formatted stack trace, which is why that is not done for every run).
 */
import { wait, WAIT_NOT_NEEDED } from '../../shared/transport/bounds';

/** How long BotDojo has to end its answer after the final line before the node hangs up. */
export const HANG_UP_AFTER_MS = 1000;

type Chunk = Uint8Array | string;

interface NodeReadable {
	iterator?: (options: { destroyOnReturn: boolean }) => AsyncIterable<Chunk>;
	destroy?: () => void;
	destroyed?: boolean;
	closed?: boolean;
	once?: (event: 'close', listener: () => void) => void;
}

export class AnswerStream {
	/** What the reader iterates. */
	readonly chunks: AsyncIterable<Chunk>;

	/** The body when it is a Node stream, the one kind that is closed here. */
	private readonly stream: NodeReadable | undefined;

	/** `runAbort` ends the request (n8n's helper listens to its signal); `hangUpReason` its reason. */
	constructor(
		body: AsyncIterable<Chunk>,
		private readonly runAbort: AbortController,
		private readonly hangUpReason: Error,
	) {
		const { iterator } = body as NodeReadable;
		// A body without `iterator` (not a Node stream) is iterated as it is.
		this.stream = typeof iterator === 'function' ? (body as NodeReadable) : undefined;
		this.chunks = this.stream?.iterator?.({ destroyOnReturn: false }) ?? body;
	}

	/** The reader is done (final line, Stop, a limit or an error): the body is let go, and its
	 *  connection ends within HANG_UP_AFTER_MS (at once when the run was aborted). */
	async close(): Promise<void> {
		const stream = this.stream;
		if (!stream) return;
		if (!stream.destroyed) stream.destroy?.();
		if (stream.closed || this.runAbort.signal.aborted || typeof stream.once !== 'function') return;
		const closed = new AbortController();
		stream.once('close', () => closed.abort(WAIT_NOT_NEEDED));
		try {
			await wait(HANG_UP_AFTER_MS, closed.signal);
		} catch {
			return; // the body closed: BotDojo ended its answer
		}
		this.runAbort.abort(this.hangUpReason);
	}
}
