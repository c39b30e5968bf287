/**
 * The time limits of one run, decided and worded in one place. Timeout counts from the start
 * (the request, Retry-After waits, the answer however it comes); Idle Timeout, the longest
 * pause between two chunks, counts once a streamed run's answer began (a blocking run is silent
 * until its flow ends). One wait at a time, for the nearest limit: a chunk only stamps its time.
 */
import { wait, WAIT_NOT_NEEDED } from '../../shared/transport/bounds';

/** Where the run is: waiting for BotDojo's answer, or reading it (events, or one whole record). */
export type RunPhase = 'request' | 'stream' | 'record';

/** A limit that passed; `signal.reason` of the run's deadline. */
export class DeadlinePassed extends Error {
	constructor(
		readonly kind: 'timeout' | 'idle',
		message: string,
	) {
		super(message);
		this.name = 'DeadlinePassed';
	}
}

/** What the user reads when a limit passed (a reader adds what had arrived). */
function deadlineMessage(kind: 'timeout' | 'idle', limitMs: number, phase: RunPhase): string {
	if (kind === 'idle') {
		const what = phase === 'stream' ? 'The stream' : "BotDojo's answer";
		return `${what} stalled: nothing arrived for ${limitMs} ms`;
	}
	return phase === 'request'
		? `BotDojo did not answer within the timeout of ${limitMs} ms`
		: `The run took longer than the timeout of ${limitMs} ms`;
}

export interface RunLimits {
	/** Whole run, in ms; 0: no limit. */
	timeoutMs: number;
	/** Longest pause between two chunks of an answer, in ms; 0: no limit. */
	idleTimeoutMs: number;
}

export class RunDeadline {
	private readonly passed = new AbortController();

	private readonly startedAt = Date.now();

	private phase: RunPhase = 'request';

	private lastChunkAt = 0;

	/** The wait now running; aborted to look at the limits again (or to stop watching). */
	private nap?: AbortController;

	private ended = false;

	constructor(private readonly limits: RunLimits) {
		void this.watch();
	}

	/** Aborts, with a DeadlinePassed, when a limit passes. */
	get signal(): AbortSignal {
		return this.passed.signal;
	}

	/** The limit that passed, if one did. */
	get reason(): DeadlinePassed | undefined {
		return this.passed.signal.aborted ? (this.passed.signal.reason as DeadlinePassed) : undefined;
	}

	/** BotDojo's answer began; a streamed one (`stream`, `record`) is then held to Idle Timeout. */
	answerBegan(phase: Exclude<RunPhase, 'request'>): void {
		this.phase = phase;
		this.lastChunkAt = Date.now();
		if (this.nap) this.nap.abort(WAIT_NOT_NEEDED);
		else void this.watch();
	}

	/** A chunk of the answer arrived. */
	chunk(): void {
		this.lastChunkAt = Date.now();
	}

	/** The run ended: the wait ends now, leaving no timer behind. */
	end(): void {
		this.ended = true;
		this.nap?.abort(WAIT_NOT_NEEDED);
	}

	/** Sleeps until the nearest limit, then either aborts `signal` or sleeps again. */
	private async watch(): Promise<void> {
		const { timeoutMs, idleTimeoutMs } = this.limits;
		while (!this.ended && !this.passed.signal.aborted) {
			const now = Date.now();
			const totalLeft = timeoutMs > 0 ? this.startedAt + timeoutMs - now : Infinity;
			const idle = idleTimeoutMs > 0 && this.phase !== 'request';
			const idleLeft = idle ? this.lastChunkAt + idleTimeoutMs - now : Infinity;
			if (totalLeft <= 0) return this.pass('timeout', timeoutMs);
			if (idleLeft <= 0) return this.pass('idle', idleTimeoutMs);
			if (totalLeft === Infinity && idleLeft === Infinity) return;
			const nap = new AbortController();
			this.nap = nap;
			try {
				await wait(Math.min(totalLeft, idleLeft), nap.signal);
			} catch {
				// woken to look again (the answer began) or to stop (the run ended)
			} finally {
				this.nap = undefined;
			}
		}
	}

	private pass(kind: 'timeout' | 'idle', limitMs: number): void {
		this.passed.abort(new DeadlinePassed(kind, deadlineMessage(kind, limitMs, this.phase)));
	}
}
