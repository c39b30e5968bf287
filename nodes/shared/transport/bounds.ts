/** Every read and wait bounded: an answer's time to begin and to arrive, its size, its nesting
 *  when quoted, and the package's one wait (n8n's sleep), which Stop ends. */
import * as workflow from 'n8n-workflow';

import { AnswerBoundReached } from './errors';
import type { FullResponse } from './project';

/** The bounds of every read of an answer (README, "Limits"); tests lower them on this object. */
export const ANSWER_LIMITS = {
	errorBytes: 64 * 1024, // of an error answer (429/503 too), kept to quote BotDojo's words
	answerBytes: 128 * 1024 * 1024, // a whole JSON answer (an export page, a record, a status)
	readMs: 60_000, // the longest a body may take to arrive once its status came
	statusMs: 60_000, // the longest a request (not a run: its Timeout) waits for the status
	uploadBytesPerSecond: 64 * 1024, // an upload's statusMs grows by its size sent at this rate
};

/** Calls `late` after `ms` unless the returned function is called first. */
export function alarm(ms: number, late: () => void): () => void {
	const clock = new AbortController();
	wait(ms, clock.signal).then(late, () => undefined);
	return () => clock.abort(WAIT_NOT_NEEDED);
}

/** `send`'s answer once its status came, within statusMs (plus the time to send `uploadBytes`):
 *  n8n's timeout counts idle time only, which headers written a byte at a time never reach. */
export async function beginWithin(
	send: (signal: AbortSignal) => Promise<FullResponse>,
	stop?: AbortSignal,
	uploadBytes = 0,
): Promise<FullResponse> {
	const { statusMs, uploadBytesPerSecond } = ANSWER_LIMITS;
	const boundMs = statusMs + Math.ceil(uploadBytes / uploadBytesPerSecond) * 1000;
	const bound = new AbortController();
	const stopAlarm = alarm(boundMs, () => bound.abort());
	const late = `BotDojo's answer did not begin within ${boundMs / 1000} s and the request was ended (the longest a request waits for BotDojo to begin its answer${uploadBytes ? ', with 1 s per 64 KiB uploaded' : ''})`;
	return await send(stop ? AbortSignal.any([stop, bound.signal]) : bound.signal)
		.catch(async (error) => {
			const reached = bound.signal.aborted && !stop?.aborted;
			return await Promise.reject(reached ? new AnswerBoundReached(late) : error);
		})
		.finally(stopAlarm);
}

type Readable = AsyncIterable<Uint8Array | string>;

/** A body read as a stream (`encoding: 'stream'`) rather than parsed. */
export function isReadable(body: unknown): body is Readable {
	return body !== null && typeof body === 'object' && Symbol.asyncIterator in body;
}

/**
 * A stream read whole within ANSWER_LIMITS and parsed as n8n would (JSON, else text); a parsed
 * body as it is. `error`: an error answer, its first errorBytes quoted as far as they came (as
 * text when nested deeper than anything reading it follows). Records may quote the key (a
 * flow's logs): what leaves the node is redacted (redaction.ts).
 */
export async function readAnswer(
	body: unknown,
	{ error = false, signal }: { error?: boolean; signal?: AbortSignal } = {},
): Promise<unknown> {
	if (!isReadable(body)) return body;
	const { errorBytes, answerBytes, readMs } = ANSWER_LIMITS;
	const maxBytes = error ? errorBytes : answerBytes;
	const tooLarge = `BotDojo's answer is larger than ${Math.round(maxBytes / 1024 / 1024)} MiB and was refused rather than held in memory (the largest answer read whole)`;
	const tooLate = `BotDojo's answer took longer than ${readMs / 1000} s to arrive and was cut off (the longest an answer may take)`;
	const bounds = { maxBytes, totalMs: readMs, cut: error, signal, tooLarge, tooLate };
	const chunks: Uint8Array[] = [];
	const reading = (async () => {
		for await (const chunk of boundedChunks(body, bounds)) chunks.push(chunk);
	})();
	// An error answer is quoted as far as it came.
	await (error ? reading.catch(() => undefined) : reading);
	const text = Buffer.concat(chunks)
		.toString('utf8')
		.replace(/^\uFEFF/, '');
	if (error && nestingDepth(text) > 64) return text;
	return workflow.jsonParse<unknown>(text, { fallbackValue: text });
}

/** How deep brackets nest in a JSON text (brackets inside strings not counted). */
function nestingDepth(text: string): number {
	let depth = 0;
	let deepest = 0;
	let inString = false;
	for (let at = 0; at < text.length; at++) {
		const code = text.charCodeAt(at);
		// in a string, a backslash escapes the next character
		if (inString && code === 92) at++;
		else if (code === 34) inString = !inString;
		else if (!inString && (code === 91 || code === 123)) deepest = Math.max(deepest, ++depth);
		else if (!inString && (code === 93 || code === 125)) depth--;
	}
	return deepest;
}

/** A body's chunks as they come (an answer read whole, a downloaded file), within a byte and a
 *  total time bound, each worded; `cut`: past maxBytes end with the bytes within it (an error
 *  answer) rather than refuse. The body is destroyed when a bound or Stop (`signal`) ends it. */
export async function* boundedChunks(
	body: Readable,
	bounds: {
		maxBytes: number;
		totalMs: number;
		tooLarge: string;
		tooLate: string;
		cut?: boolean;
		signal?: AbortSignal;
	},
) {
	const hangUp = (reason: Error) => (body as { destroy?: (e: Error) => void }).destroy?.(reason);
	let late: AnswerBoundReached | undefined;
	const stopAlarm = alarm(bounds.totalMs, () =>
		hangUp((late = new AnswerBoundReached(bounds.tooLate))),
	);
	const onStop = () => hangUp(new Error('canceled'));
	bounds.signal?.addEventListener('abort', onStop, { once: true });
	let size = 0;
	try {
		for await (const chunk of body) {
			const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
			size += buffer.length;
			const over = size - bounds.maxBytes;
			if (over > 0 && !bounds.cut) throw new AnswerBoundReached(bounds.tooLarge);
			yield over > 0 ? buffer.subarray(0, buffer.length - over) : buffer;
			if (over > 0) return; // leaving the loop hangs up
		}
	} catch (error) {
		throw late ?? error;
	} finally {
		stopAlarm();
		bounds.signal?.removeEventListener('abort', onStop);
	}
}

/** The reason given to a wait no longer needed: one value, not a new DOMException each time. */
export const WAIT_NOT_NEEDED = new Error('The wait was no longer needed');

/** The longest wait a timer can hold (2^31-1 ms, about 24.8 days); longer fires at once. */
export const LONGEST_WAIT_MS = 2 ** 31 - 1;

/** `ms`, or on abort at once the signal's reason as an Error (n8n's Stop gives none). Timers are
 *  banned in nodes: n8n-workflow's `sleep(ms, signal)` waits. Retry-After waits, the read clocks
 *  and a run's deadline use it. */
export async function wait(ms: number, signal: AbortSignal): Promise<void> {
	try {
		signal.throwIfAborted();
		await workflow.sleep(Math.min(Math.max(0, ms), LONGEST_WAIT_MS), signal);
	} catch {
		const reason = signal.reason as { message?: unknown } | undefined;
		// e.g. a DOMException of another realm, as in jest
		const words = typeof reason?.message === 'string' ? reason.message : 'The wait was aborted';
		return await Promise.reject(reason instanceof Error ? reason : new Error(words));
	}
}
