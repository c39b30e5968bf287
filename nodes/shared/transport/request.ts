/**
 * The one sender and reader: the credential (project.ts) through n8n's helper, no redirect
 * followed, only 429/503 retried; every wait on one `Deadline`, every body read by `readWithin`
 * within a byte bound, its deadline and Stop. api.ts, run.ts and download.ts call it.
 */
import * as workflow from 'n8n-workflow';
import type { IDataObject, IHttpRequestMethods, IHttpRequestOptions } from 'n8n-workflow';

import { AnswerBrokeOffError, apiError, ReadFailure, transportError } from './errors';
import { CREDENTIAL_TYPE, projectUrl, readCredentialOfRun, withCancelSignal } from './project';
import type {
	BotDojoContext,
	Endpoint,
	FullResponse,
	RequestSettings,
	RetryPolicy,
} from './project';

/** The bounds of every read of an answer (README, "Limits"); tests lower them on this object. */
export const READ_BOUNDS = {
	errorBytes: 64 * 1024, // of an error answer (429/503 too), kept to quote BotDojo's words
	answerBytes: 128 * 1024 * 1024, // a whole JSON answer (an export page, a record, a status)
	readMs: 60_000, // the longest a body may take to arrive once its status came
	statusMs: 60_000, // the longest a request (not a run: its Timeout) waits for the status
	uploadBytesPerSecond: 64 * 1024, // an upload's statusMs grows by its size sent at this rate
};

const DEFAULT_RETRY = { maxAttempts: 4, maxTotalWaitMs: 60_000 };

/** The first answer BotDojo accepted, its body read and parsed here (n8n's parsing keeps about
 *  twice an answer alive: docs/performance.md), or with `readByCaller` left to a run to read. */
export async function sendWithRetries(
	ctx: BotDojoContext,
	method: IHttpRequestMethods,
	endpoint: Endpoint,
	body: IDataObject | FormData | { params: unknown[] },
	settings: RequestSettings = {},
) {
	const { fields: credentials, auth } = await readCredentialOfRun(ctx);
	// The caller's signal (a run's own), else the execution's Stop: it also ends Retry-After waits.
	const execution = ctx as { getExecutionCancelSignal?: () => AbortSignal | undefined };
	const abortSignal = settings.abortSignal ?? execution.getExecutionCancelSignal?.();
	const isForm = body instanceof FormData;
	const options: IHttpRequestOptions = {
		method,
		url: projectUrl(credentials, endpoint),
		// JSON as text: n8n deep-copies an object body and drops keys such as `__proto__` and
		// `constructor` on the way, which are the user's field and variable names here.
		body: isForm ? (body as unknown as IDataObject) : JSON.stringify(body),
		...(isForm ? {} : { headers: { 'content-type': 'application/json' } }),
		json: !isForm,
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
		timeout: settings.timeout,
		encoding: 'stream',
		// Following a redirect would send the key (and the body) again, maybe elsewhere.
		disableFollowRedirect: true,
		sendCredentialsOnCrossOriginRedirect: false,
	};
	// n8n's helper (2.x) puts the context's cancel signal on the request in place of its own.
	const send = async (signal?: AbortSignal) => {
		const sender = signal ? withCancelSignal(ctx, signal) : ctx;
		return (await sender.helpers.httpRequestWithAuthentication.call(
			sender,
			CREDENTIAL_TYPE,
			{ ...options, abortSignal: signal ?? abortSignal },
			auth,
		)) as FullResponse;
	};
	// An upload's wait for its status includes sending the file (its multipart framing aside).
	let uploadBytes = 0;
	if (isForm)
		body.forEach((value) => (uploadBytes += typeof value === 'string' ? value.length : value.size));
	const refusal = ({ statusCode, headers, body }: FullResponse, attempts: number) =>
		apiError(ctx, statusCode, body, credentials, settings, {
			attempts,
			retryAfter: headerOf(headers, 'retry-after'),
			url: options.url,
			location: headerOf(headers, 'location'),
		});
	const response = await retryWhileRateLimited({
		send: async () => {
			// A run's deadline bounds its wait (its Timeout) and it reads its own answer.
			if (settings.readByCaller) return await send();
			const response = await beginWithin(send, abortSignal, uploadBytes);
			if (response.statusCode >= 300) return response;
			// Read inside the attempt, so that a connection broken mid-answer is a network failure.
			const read = await readAnswer(response.body, abortSignal).catch((error) => {
				throw error instanceof ReadFailure ? error : new AnswerBrokeOffError(error);
			});
			return { ...response, body: read };
		},
		retry: settings.retry,
		abortSignal,
		networkError: (error, waiting) => transportError(ctx, error, credentials, settings, waiting),
		refusal,
	});
	if (response.statusCode < 300) return response;
	// A redirect, not followed: its body (bounded) goes into the error's details.
	throw refusal({ ...response, body: await readAnswer(response.body, abortSignal, true) }, 1);
}

/** One request, sent again while the answer is 429 or 503 (BotDojo did not act on it), by
 *  `retry` (DEFAULT_RETRY when absent): `networkError` words a failure with no answer
 *  (`waiting`: in a Retry-After wait), `refusal` an answer of 400 or more not retried, its body
 *  already read as an error answer (readAnswer). */
interface RateLimitedRequest {
	send(): Promise<FullResponse>;
	retry?: RetryPolicy;
	abortSignal?: AbortSignal;
	networkError(error: unknown, waiting: boolean): Error;
	refusal(response: FullResponse, attempts: number): Error;
}

/** Returns the first answer below 400; waits honour Retry-After within the policy. */
export async function retryWhileRateLimited(request: RateLimitedRequest) {
	const { retry = DEFAULT_RETRY, abortSignal, networkError } = request;
	const failure = (waiting: boolean) => (error: unknown) => {
		throw networkError(error, waiting);
	};
	let waited = 0;
	for (let attempt = 1; ; attempt++) {
		const response = await request.send().catch(failure(false));
		if (response.statusCode < 400) return response;
		const delay =
			parseRetryAfter(headerOf(response.headers, 'retry-after')) ??
			Math.min(1000 * 2 ** (attempt - 1), 8000);
		const retried = response.statusCode === 429 || response.statusCode === 503;
		// Quoted by a refusal, else dropped.
		const body = await readAnswer(response.body, abortSignal, true);
		if (!retried || attempt >= retry.maxAttempts || waited + delay > retry.maxTotalWaitMs)
			throw request.refusal({ ...response, body }, attempt);
		waited += delay;
		await waitFor(delay, abortSignal).catch(failure(true));
	}
}

/** Retry-After is either seconds or an HTTP date. */
export function parseRetryAfter(value: string | undefined) {
	if (!value) return undefined;
	const seconds = Number(value);
	if (Number.isFinite(seconds) && seconds >= 0) return Math.round(seconds * 1000);
	const date = Date.parse(value);
	return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/** `name` in lower case, as Node gives headers. */
export function headerOf(headers: FullResponse['headers'], name: string) {
	const value = headers?.[name];
	return Array.isArray(value) ? value[0] : value;
}

/** `send`'s answer once its status came, within statusMs (plus the time to send `uploadBytes`):
 *  n8n's timeout counts idle time only, which headers written a byte at a time never reach. */
export async function beginWithin(
	send: (signal: AbortSignal) => Promise<FullResponse>,
	stop?: AbortSignal,
	uploadBytes = 0,
) {
	const { statusMs, uploadBytesPerSecond } = READ_BOUNDS;
	const boundMs = statusMs + Math.ceil(uploadBytes / uploadBytesPerSecond) * 1000;
	const deadline = new Deadline(
		{ totalMs: boundMs },
		() =>
			`BotDojo's answer did not begin within ${boundMs / 1000} s and the request was ended (the longest a request waits for BotDojo to begin its answer${uploadBytes ? ', with 1 s per 64 KiB uploaded' : ''})`,
	);
	return await send(stop ? AbortSignal.any([stop, deadline.signal]) : deadline.signal)
		.catch((error) => {
			throw deadline.reason && !stop?.aborted ? deadline.reason : error;
		})
		.finally(() => deadline.end());
}

type DeadlineKind = 'timeout' | 'idle';

/**
 * The one deadline of every request, read and wait: `totalMs` from its start, and once `began`,
 * `idleMs` between two chunks (0: no such limit); its signal aborts with a ReadFailure worded by
 * `words`. One wait at a time, for the nearest limit: a chunk only stamps its time.
 */
export class Deadline {
	private readonly passed = new AbortController();
	/** Aborts, with the ReadFailure of the limit, when a limit passes. */
	readonly signal = this.passed.signal;
	private readonly startedAt = Date.now();
	/** What began (the answer, a stream…): idle time counts from then; undefined before. */
	private what?: string;
	private lastChunkAt = 0;
	/** The wait now running; aborted to look at the limits again (or to stop watching). */
	private nap?: AbortController;
	private ended = false;

	constructor(
		private readonly limits: { totalMs: number; idleMs?: number },
		private readonly words: (kind: DeadlineKind, limitMs: number, what?: string) => string,
	) {
		void this.watch();
	}

	/** Undefined until a limit passed (an AbortSignal's reason). */
	get reason() {
		return this.signal.reason as ReadFailure | undefined;
	}

	/** The answer began: from now on a pause between chunks is held to `idleMs`. */
	began(what: string) {
		this.what = what;
		this.lastChunkAt = Date.now();
		if (this.nap) this.nap.abort(WAIT_NOT_NEEDED);
		else void this.watch();
	}

	chunk() {
		this.lastChunkAt = Date.now();
	}

	/** Done: the wait ends now, leaving no timer behind. */
	end() {
		this.ended = true;
		this.nap?.abort(WAIT_NOT_NEEDED);
	}

	private async watch() {
		const { totalMs, idleMs = 0 } = this.limits;
		while (!this.ended && !this.signal.aborted) {
			const now = Date.now();
			const totalLeft = totalMs > 0 ? this.startedAt + totalMs - now : Infinity;
			const idleLeft = idleMs > 0 && this.what ? this.lastChunkAt + idleMs - now : Infinity;
			if (totalLeft <= 0) return this.pass('timeout', totalMs);
			if (idleLeft <= 0) return this.pass('idle', idleMs);
			if (totalLeft === Infinity && idleLeft === Infinity) return;
			const nap = new AbortController();
			this.nap = nap;
			// Woken early to look again (the answer began) or to stop (ended).
			await waitFor(Math.min(totalLeft, idleLeft), nap.signal).catch(() => undefined);
			this.nap = undefined;
		}
	}

	private pass(kind: DeadlineKind, limitMs: number) {
		this.passed.abort(new ReadFailure(kind, this.words(kind, limitMs, this.what)));
	}
}

export type Readable = AsyncIterable<Uint8Array | string>;

/** A body read as a stream (`encoding: 'stream'`) rather than parsed. */
export function isReadable(body: unknown): body is Readable {
	return body !== null && typeof body === 'object' && Symbol.asyncIterator in body;
}

/** How `readWithin` reads a body: at most `maxBytes` (past it refused with `tooLarge`, or with
 *  `cut` ended at the bytes within it), within `deadline` (each chunk stamps it) or its own of
 *  `totalMs` (worded `tooLate`), ended on Stop (`signal`, worded `canceled`); `hangUp` ends the
 *  body (by default: destroys it). */
interface BodyBounds {
	maxBytes: number;
	tooLarge: string;
	cut?: boolean;
	deadline?: Deadline;
	totalMs?: number;
	tooLate?: string;
	signal?: AbortSignal;
	canceled?: string;
	hangUp?: (reason: Error) => void;
}

/** The one bounded reader: a body's chunks as they come (an answer, an error answer, a stream,
 *  a downloaded file). The first reason to end it (a bound, Stop) is what it throws. */
export async function* readWithin(body: Readable, bounds: BodyBounds): AsyncGenerator<Uint8Array> {
	const destroy = (reason: Error) => (body as { destroy?: (e: Error) => void }).destroy?.(reason);
	let ended: Error | undefined;
	const end = (reason: Error) => {
		if (ended) return;
		ended = reason;
		(bounds.hangUp ?? destroy)(reason);
	};
	const { signal, totalMs, tooLate = '' } = bounds;
	const own = !bounds.deadline && totalMs ? new Deadline({ totalMs }, () => tooLate) : undefined;
	const deadline = bounds.deadline ?? own;
	const onLate = () => end(deadline?.reason as Error);
	const onStop = () => end(new ReadFailure('cancelled', bounds.canceled ?? 'canceled'));
	if (deadline?.reason) onLate();
	if (signal?.aborted) onStop();
	deadline?.signal.addEventListener('abort', onLate, { once: true });
	signal?.addEventListener('abort', onStop, { once: true });
	let size = 0;
	try {
		if (ended) throw ended;
		for await (const chunk of body) {
			deadline?.chunk();
			const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
			size += buffer.length;
			const over = size - bounds.maxBytes;
			if (over > 0 && !bounds.cut) {
				end(new ReadFailure('oversize', bounds.tooLarge));
				throw ended;
			}
			yield over > 0 ? buffer.subarray(0, buffer.length - over) : buffer;
			if (ended) throw ended;
			if (over > 0) return; // leaving the loop hangs up
		}
	} catch (error) {
		throw ended ?? error;
	} finally {
		own?.end();
		deadline?.signal.removeEventListener('abort', onLate);
		signal?.removeEventListener('abort', onStop);
	}
}

/**
 * A stream read whole within READ_BOUNDS and parsed as n8n would (JSON, else text); a parsed
 * body as it is. `error`: an error answer, its first errorBytes quoted as far as they came (as
 * text when nested deeper than anything reading it follows). Records may quote the key (a
 * flow's logs): what leaves the node is redacted (redaction.ts).
 */
export async function readAnswer(body: unknown, signal?: AbortSignal, error = false) {
	if (!isReadable(body)) return body;
	const { errorBytes, answerBytes, readMs } = READ_BOUNDS;
	const maxBytes = error ? errorBytes : answerBytes;
	const chunks: Uint8Array[] = [];
	const read = readWithin(body, {
		maxBytes,
		tooLarge: `BotDojo's answer is larger than ${Math.round(maxBytes / 1024 / 1024)} MiB and was refused rather than held in memory (the largest answer read whole)`,
		cut: error,
		totalMs: readMs,
		tooLate: `BotDojo's answer took longer than ${readMs / 1000} s to arrive and was cut off (the longest an answer may take)`,
		signal,
	});
	try {
		for await (const chunk of read) chunks.push(chunk);
	} catch (failure) {
		if (!error) return await Promise.reject(failure); // an error answer: quoted as far as it came
	}
	const text = Buffer.concat(chunks)
		.toString('utf8')
		.replace(/^\uFEFF/, '');
	if (error && nestingDepth(text) > 64) return text;
	return workflow.jsonParse<unknown>(text, { fallbackValue: text });
}

/** How deep brackets nest in a JSON text (brackets inside strings not counted). */
function nestingDepth(text: string) {
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

/** The reason given to a wait no longer needed: one value, not a new DOMException each time. */
export const WAIT_NOT_NEEDED = new Error('The wait was no longer needed');

/** The longest wait a timer can hold (2^31-1 ms, about 24.8 days); longer fires at once. */
const LONGEST_WAIT = 2 ** 31 - 1;

/** `ms`, or on abort at once the signal's reason as an Error (n8n's Stop gives none). Timers are
 *  banned in nodes: n8n-workflow's `sleep(ms, signal)` waits. */
export async function waitFor(ms: number, signal?: AbortSignal) {
	try {
		await workflow.sleep(Math.min(Math.max(0, ms), LONGEST_WAIT), signal);
	} catch {
		const reason = signal?.reason as { message?: unknown } | undefined;
		// e.g. a DOMException of another realm, as in jest
		const words = typeof reason?.message === 'string' ? reason.message : 'The wait was aborted';
		throw reason instanceof Error ? reason : new Error(words);
	}
}
