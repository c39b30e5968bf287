/**
 * The one wait of the package (Retry-After waits, a run's deadlines): it ends at once when its
 * signal aborts, on every n8n the package supports, and leaves no timer behind once aborted.
 * Timers are not allowed in community nodes; n8n-workflow's waits differ by version (read off
 * the published packages):
 * - 1.98.0 (n8n 1.101) to 2.0 at least: `sleep(ms)` ignores a signal, `sleepWithAbort` honours it;
 * - 2.41: `sleep(ms, signal)` honours it, and there is no `sleepWithAbort`;
 * - up to 1.97.0 (n8n 1.85 to 1.100): only `sleep(ms)`, which cannot be cancelled at all.
 */
import * as workflow from 'n8n-workflow';

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
