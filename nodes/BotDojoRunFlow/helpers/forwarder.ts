/**
 * Live forwarding: when n8n streams the workflow's response (Chat Trigger, Webhook in streaming
 * mode), tokens go on to the caller as they arrive: `begin`, `item`s, `end`. The first token goes
 * out at once; later ones are sent together per network read (`flush`), as n8n writes and
 * flushes every chunk (one per token made a gzip response 10× slower).
 */
import type { IExecuteFunctions } from 'n8n-workflow';

type ChunkType = 'begin' | 'item' | 'end' | 'error';

/** Answered once per node execution: `getNode()` copies the whole node on every call. */
const forwardingOfRun = new WeakMap<IExecuteFunctions, boolean>();

/**
 * Where n8n streams the workflow's response; never as an AI Agent's tool (n8n runs it as the
 * type `…Tool`): the agent writes the chat, its tools must not.
 */
export function canForward(ctx: IExecuteFunctions): boolean {
	let answer = forwardingOfRun.get(ctx);
	if (answer === undefined) {
		answer = !ctx.getNode?.()?.type?.endsWith('Tool') && ctx.isStreaming() === true;
		forwardingOfRun.set(ctx, answer);
	}
	return answer;
}

export class TokenForwarder {
	/** Tokens forwarded so far. */
	sent = 0;

	private begun = false;

	/** Tokens of the current network read not sent yet. */
	private pending: string[] = [];

	constructor(
		private readonly ctx: IExecuteFunctions,
		private readonly itemIndex: number,
	) {}

	begin(): void {
		if (this.begun) return;
		this.begun = true;
		this.send('begin');
	}

	token(token: string): void {
		if (!this.begun) this.begin();
		if (this.sent === 0) {
			this.sent++;
			this.send('item', token);
			return;
		}
		this.pending.push(token);
	}

	/** Sends the tokens held since the last flush as one item. */
	flush(): void {
		if (this.pending.length === 0) return;
		const text = this.pending.length === 1 ? this.pending[0] : this.pending.join('');
		this.sent += this.pending.length;
		this.pending = [];
		this.send('item', text);
	}

	/** Ends the item; a run that streamed no tokens sends its whole text as one item first. */
	end(text: string): void {
		if (!this.begun) this.begin();
		this.flush();
		if (this.sent === 0 && text) this.send('item', text);
		this.send('end');
	}

	error(message: string): void {
		if (!this.begun) this.begin();
		this.flush();
		this.send('error', message);
	}

	private send(type: ChunkType, content?: string): void {
		// sendChunk is declared void but is async in n8n 1.10x+: a failing sink must not fail the run.
		const sent = this.ctx.sendChunk(type, this.itemIndex, content) as unknown;
		if (sent instanceof Promise) sent.catch(() => {});
	}
}
