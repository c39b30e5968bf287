/**
 * The time limits of one run, decided and worded in one place. Timeout counts from the start
 * (the request, Retry-After waits, the answer however it comes); Idle Timeout, the longest
 * pause between two chunks, counts once a streamed run's answer began (a blocking run is silent
 * until its flow ends). One wait at a time, for the nearest limit: a chunk only stamps its time.
 */
import * as workflow from 'n8n-workflow';

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

/**
 * What the user reads when a limit passed (a reader adds what had arrived); every timeout of the
 * package is worded here. `limitMs` 0: a limit not the package's own (n8n's request timeout).
 */
export function deadlineMessage(
	kind: 'timeout' | 'idle',
	limitMs: number,
	phase: RunPhase,
): string {
	if (kind === 'idle') {
		const what = phase === 'stream' ? 'The stream' : "BotDojo's answer";
		return `${what} stalled: nothing arrived for ${limitMs} ms`;
	}
	const limit = limitMs > 0 ? `the timeout of ${limitMs} ms` : 'the timeout';
	return phase === 'request'
		? `BotDojo did not answer within ${limit}`
		: `The run took longer than ${limit}`;
}

/**
 * The reason given when a wait is aborted because it is no longer needed: one shared value, as
 * `abort()` without a reason builds a new DOMException (with its stack) each time.
 */
export const WAIT_NOT_NEEDED = new Error('The wait was no longer needed');

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

// The one wait of the package
/**
 * The one wait of the package (Retry-After waits, a run's deadlines): it ends at once when its
 * signal aborts, on every n8n the package supports, and leaves no timer behind once aborted.
 * Timers are not allowed in community nodes; n8n-workflow's waits differ by version (read off
 * the published packages):
 * - 1.98.0 (n8n 1.101) to 2.0 at least: `sleep(ms)` ignores a signal, `sleepWithAbort` honours it;
 * - 2.41: `sleep(ms, signal)` honours it, and there is no `sleepWithAbort`;
 * - up to 1.97.0 (n8n 1.85 to 1.100): only `sleep(ms)`, which cannot be cancelled at all.
 */

type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

/** The longest wait a timer can hold (2^31-1 ms, about 24.8 days); longer fires at once. */
export const LONGEST_WAIT_MS = 2 ** 31 - 1;

/** Resolves after `ms`, or rejects at once with the signal's reason when it aborts. */
export async function wait(ms: number, signal: AbortSignal): Promise<void> {
	const delay = Math.min(Math.max(0, ms), LONGEST_WAIT_MS);
	// One rejection whatever the version: the abort reason as an Error (n8n's Stop gives none).
	return await sleepOf(delay, signal).catch(() => Promise.reject(reasonOf(signal)));
}

function sleepOf(ms: number, signal: AbortSignal): Promise<void> {
	const n8n = workflow as unknown as { sleep: Sleep; sleepWithAbort?: Sleep };
	if (typeof n8n.sleepWithAbort === 'function') return n8n.sleepWithAbort(ms, signal);
	// n8n-workflow 2.x declares the signal (`sleep(ms, abortSignal)`); 1.x's `sleep(ms)` does not.
	if (n8n.sleep.length >= 2) return n8n.sleep(ms, signal);
	return sharedWait(n8n.sleep, ms, signal);
}

interface Waiter {
	at: number;
	wake: () => void;
}

/** Waits that n8n-workflow 1.83 cannot cancel: they share sleeps (see `sharedWait`). */
const waiters = new Set<Waiter>();

/** When each sleep now running ends. */
const sleepsEndingAt: number[] = [];

/**
 * With an uncancellable `sleep`, a wait races the signal; its sleep runs on after a Stop. So
 * that finished runs do not leave one timer per wait behind, all waits share sleeps: a new
 * sleep starts only when no running one ends before the wait is due, and each one that ends
 * wakes the waits that are due and starts the next one only for waits still waiting.
 */
async function sharedWait(sleep: Sleep, ms: number, signal: AbortSignal): Promise<void> {
	if (signal.aborted) throw reasonOf(signal);
	await new Promise<void>((resolve, reject) => {
		const waiter: Waiter = {
			at: Date.now() + ms,
			wake: () => {
				signal.removeEventListener('abort', onAbort);
				resolve();
			},
		};
		const onAbort = () => {
			waiters.delete(waiter);
			reject(reasonOf(signal));
		};
		signal.addEventListener('abort', onAbort, { once: true });
		waiters.add(waiter);
		sleepUntil(sleep, waiter.at);
	});
}

function sleepUntil(sleep: Sleep, at: number): void {
	if (sleepsEndingAt.some((end) => end <= at)) return;
	sleepsEndingAt.push(at);
	void sleep(Math.max(0, at - Date.now())).then(() => {
		sleepsEndingAt.splice(sleepsEndingAt.indexOf(at), 1);
		const now = Date.now();
		let next = Infinity;
		for (const waiter of waiters) {
			if (waiter.at <= now) {
				waiters.delete(waiter);
				waiter.wake();
			} else next = Math.min(next, waiter.at);
		}
		if (next !== Infinity) sleepUntil(sleep, next);
	});
}

function reasonOf(signal: AbortSignal): Error {
	const reason = signal.reason as { message?: unknown } | undefined;
	if (reason instanceof Error) return reason;
	// e.g. a DOMException of another realm, as in jest
	const message = typeof reason?.message === 'string' ? reason.message : 'The wait was aborted';
	return new Error(message);
}
