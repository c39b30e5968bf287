/**
 * The one wait of the package (Retry-After waits, run deadlines): ends at once on abort, leaving
 * no timer. Timers are banned in community nodes; n8n-workflow has `sleepWithAbort` (1.98 to 2.0),
 * `sleep(ms, signal)` (2.x: 2 parameters), and up to 1.97 only an uncancellable `sleep(ms)`.
 */
import * as workflow from 'n8n-workflow';

type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

/** The reason given to a wait no longer needed: one value, not a new DOMException each time. */
export const WAIT_NOT_NEEDED = new Error('The wait was no longer needed');

/** The longest wait a timer can hold (2^31-1 ms, about 24.8 days); longer fires at once. */
export const LONGEST_WAIT_MS = 2 ** 31 - 1;

/** Resolves after `ms`, or rejects at once with the signal's reason when it aborts. */
export async function wait(ms: number, signal: AbortSignal): Promise<void> {
	const delay = Math.min(Math.max(0, ms), LONGEST_WAIT_MS);
	const { sleep, sleepWithAbort } = workflow as unknown as { sleep: Sleep; sleepWithAbort?: Sleep };
	let sleeping: Promise<void>;
	if (typeof sleepWithAbort === 'function') sleeping = sleepWithAbort(delay, signal);
	else if (sleep.length >= 2) sleeping = sleep(delay, signal);
	else sleeping = sharedWait(sleep, delay, signal);
	// One rejection whatever the version: the abort reason as an Error (n8n's Stop gives none).
	return await sleeping.catch(() => Promise.reject(reasonOf(signal)));
}

/** The waits on n8n 1.x's uncancellable `sleep`, and when each sleep now running ends. */
const waiters = new Set<{ at: number; wake: () => void }>();
const sleepsEndingAt: number[] = [];

/**
 * A wait races the signal, its sleep running on after a Stop; so that finished runs leave no
 * timer per wait behind, a sleep starts only when no running one ends before the wait is due.
 */
async function sharedWait(sleep: Sleep, ms: number, signal: AbortSignal): Promise<void> {
	if (signal.aborted) throw reasonOf(signal);
	await new Promise<void>((resolve, reject) => {
		const onAbort = () => {
			waiters.delete(waiter);
			reject(reasonOf(signal));
		};
		const wake = () => {
			signal.removeEventListener('abort', onAbort);
			resolve();
		};
		const waiter = { at: Date.now() + ms, wake };
		signal.addEventListener('abort', onAbort, { once: true });
		waiters.add(waiter);
		sleepUntil(sleep, waiter.at);
	});
}

/** Sleeps until `at`; then wakes the waits that are due and sleeps on for the next one. */
function sleepUntil(sleep: Sleep, at: number): void {
	if (sleepsEndingAt.some((end) => end <= at)) return;
	sleepsEndingAt.push(at);
	void sleep(Math.max(0, at - Date.now())).then(() => {
		sleepsEndingAt.splice(sleepsEndingAt.indexOf(at), 1);
		const now = Date.now();
		let next = Infinity;
		for (const waiter of waiters) {
			if (waiter.at > now) next = Math.min(next, waiter.at);
			else if (waiters.delete(waiter)) waiter.wake();
		}
		if (next !== Infinity) sleepUntil(sleep, next);
	});
}

function reasonOf(signal: AbortSignal): Error {
	const reason = signal.reason as { message?: unknown } | undefined;
	if (reason instanceof Error) return reason;
	// e.g. a DOMException of another realm, as in jest
	return new Error(typeof reason?.message === 'string' ? reason.message : 'The wait was aborted');
}
