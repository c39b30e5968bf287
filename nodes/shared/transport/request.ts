/**
 * The one way to BotDojo's API: the credential (project.ts) through n8n's helper, no redirect
 * followed, only 429/503 retried, every answer read within ANSWER_LIMITS, failures worded by
 * errors.ts. api.ts calls it; nothing else sends.
 */
import type {
	IDataObject,
	IExecuteFunctions,
	IHttpRequestMethods,
	IHttpRequestOptions,
} from 'n8n-workflow';

import { AnswerBoundReached, AnswerBrokeOffError, apiError, transportError } from './errors';
import {
	CREDENTIAL_TYPE,
	projectUrl,
	readCredentialOfRun,
	type BotDojoContext,
	type Endpoint,
	type FullResponse,
	type RequestSettings,
	type RetryPolicy,
} from './project';
import { holdsKey, redactDeep } from './redaction';
import { wait, WAIT_NOT_NEEDED } from './wait';

/**
 * The bounds of every read of an answer (README, "Limits"). A reached bound names itself.
 * Tests lower them on this object; the product only reads it.
 */
export const ANSWER_LIMITS = {
	/** An error answer (429/503 too): its first 64 KiB are kept to quote BotDojo's words. */
	errorBytes: 64 * 1024,
	/** A whole JSON answer (an export page, a record, a status). */
	answerBytes: 128 * 1024 * 1024,
	/** Longest a body may take to arrive once its status came, in ms. */
	readMs: 60_000,
};

export const DEFAULT_RETRY: RetryPolicy = { maxAttempts: 4, maxTotalWaitMs: 60_000 };

/** `{ params: [...] }`: trailing absent parameters left out, an absent one before a present one null. */
export function positionalBody(params: readonly unknown[]): { params: unknown[] } {
	let length = params.length;
	while (length > 0 && (params[length - 1] === undefined || params[length - 1] === null)) length--;
	return { params: params.slice(0, length).map((value) => (value === undefined ? null : value)) };
}

/** POSTs `{ params }` to a positional endpoint; returns its answer, parsed. */
export async function positionalRequest(
	ctx: BotDojoContext,
	endpoint: Endpoint,
	params: readonly unknown[],
	settings: RequestSettings = {},
): Promise<unknown> {
	return (await sendWithRetries(ctx, 'POST', endpoint, positionalBody(params), settings)).body;
}

/**
 * Sends one request to a project endpoint and returns the first answer BotDojo accepted, its
 * body read and parsed here (n8n's parsing keeps about twice an answer alive: docs/performance.md),
 * or, with `settings.readByCaller`, left as a stream for the caller (a run).
 */
export async function sendWithRetries(
	ctx: BotDojoContext,
	method: IHttpRequestMethods,
	endpoint: Endpoint,
	body: IDataObject | FormData | { params: unknown[] },
	settings: RequestSettings = {},
): Promise<FullResponse> {
	const { fields: credentials, auth } = await readCredentialOfRun(ctx);
	// The caller's signal (a run's own), else the execution's Stop: it also ends Retry-After waits.
	const execution = ctx as Partial<Pick<IExecuteFunctions, 'getExecutionCancelSignal'>>;
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
		abortSignal,
		encoding: 'stream',
		// Following a redirect would send the key (and the body) again, maybe elsewhere.
		disableFollowRedirect: true,
		sendCredentialsOnCrossOriginRedirect: false,
	};
	const refusal = async (response: FullResponse, attempts: number) => {
		const said = await readErrorBody(response.body, abortSignal);
		return apiError(ctx, response.statusCode, said, credentials, settings, {
			attempts,
			retryAfter: header(response.headers, 'retry-after'),
			url: options.url,
			location: header(response.headers, 'location'),
		});
	};
	const response = await retryWhileRateLimited({
		send: async () => {
			const response = (await ctx.helpers.httpRequestWithAuthentication.call(
				ctx,
				CREDENTIAL_TYPE,
				options,
				auth,
			)) as FullResponse;
			if (settings.readByCaller || response.statusCode >= 300) return response;
			// Read inside the attempt, so that a connection broken mid-answer is a network failure.
			try {
				const bounds = { maxBytes: ANSWER_LIMITS.answerBytes, signal: abortSignal };
				return { ...response, body: await readAnswer(response.body, bounds, credentials.apiKey) };
			} catch (error) {
				const ownWords = abortSignal?.aborted || error instanceof AnswerBoundReached;
				throw ownWords ? error : new AnswerBrokeOffError(error);
			}
		},
		retry: settings.retry ?? DEFAULT_RETRY,
		abortSignal,
		drain: async (response) => void (await readErrorBody(response.body, abortSignal)),
		networkError: (error, waiting) => transportError(ctx, error, credentials, settings, waiting),
		refusal,
	});
	if (response.statusCode >= 300) throw await refusal(response, 1);
	return response;
}

/** One request, sent again while the answer is 429 or 503 (BotDojo did not act on it). */
export interface RateLimitedRequest {
	send(): Promise<FullResponse>;
	retry: RetryPolicy;
	/** Ends a Retry-After wait at once (Stop). */
	abortSignal?: AbortSignal;
	/** Reads (within its bounds) the body of a 429/503 that is retried. */
	drain(response: FullResponse): Promise<void>;
	/** A failure with no answer; `waiting` when it came during a Retry-After wait. */
	networkError(error: unknown, waiting: boolean): Error;
	/** An answer of 400 or more that is not retried. */
	refusal(response: FullResponse, attempts: number): Promise<Error> | Error;
}

/** Returns the first answer below 400; waits honour Retry-After within the policy. */
export async function retryWhileRateLimited(request: RateLimitedRequest): Promise<FullResponse> {
	let waited = 0;
	for (let attempt = 1; ; attempt++) {
		const response = await request.send().catch((error: unknown) => {
			throw request.networkError(error, false);
		});
		if (response.statusCode < 400) return response;
		const { maxAttempts, maxTotalWaitMs } = request.retry;
		const retryAfter = parseRetryAfter(header(response.headers, 'retry-after'));
		const delay = retryAfter ?? Math.min(1000 * 2 ** (attempt - 1), 8000);
		const retried = response.statusCode === 429 || response.statusCode === 503;
		if (!retried || attempt >= maxAttempts || waited + delay > maxTotalWaitMs) {
			throw await request.refusal(response, attempt);
		}
		await request.drain(response);
		waited += delay;
		await wait(delay, request.abortSignal ?? new AbortController().signal).catch((error) => {
			throw request.networkError(error, true);
		});
	}
}

/** Retry-After is either seconds or an HTTP date. */
export function parseRetryAfter(value: string | undefined): number | undefined {
	if (!value) return undefined;
	const seconds = Number(value);
	if (Number.isFinite(seconds) && seconds >= 0) return Math.round(seconds * 1000);
	const date = Date.parse(value);
	return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

export function header(headers: FullResponse['headers'], name: string): string | undefined {
	const value = headers?.[name] ?? headers?.[name.toLowerCase()];
	return Array.isArray(value) ? value[0] : value;
}

/** A body read as a stream (`encoding: 'stream'`) rather than parsed. */
export function isReadable(body: unknown): body is AsyncIterable<Uint8Array | string> {
	return body !== null && typeof body === 'object' && Symbol.asyncIterator in body;
}

interface ReadBounds {
	maxBytes: number;
	/** Past maxBytes, keep what arrived and hang up (an error answer) rather than refuse it. */
	cut?: boolean;
	signal?: AbortSignal;
}

/** An error answer: its first ANSWER_LIMITS.errorBytes, quoted as far as it came. */
export async function readErrorBody(body: unknown, signal?: AbortSignal): Promise<unknown> {
	return await readAnswer(body, { maxBytes: ANSWER_LIMITS.errorBytes, cut: true, signal });
}

/**
 * A streamed answer read within its bounds and parsed as n8n would (JSON, else its text); a body
 * n8n already parsed as it is. Records may quote the key (a flow's logs): `apiKey` is redacted.
 */
export async function readAnswer(
	body: unknown,
	bounds: ReadBounds = { maxBytes: ANSWER_LIMITS.answerBytes },
	apiKey = '',
): Promise<unknown> {
	if (!isReadable(body)) return body;
	const text = Buffer.concat(await readBounded(body, bounds))
		.toString('utf8')
		.replace(/^\uFEFF/, '');
	// An error answer nested deeper than anything reading it follows is quoted as text.
	if (bounds.cut && nestingDepth(text) > 64) return text;
	let answer: unknown = text;
	try {
		answer = JSON.parse(text);
	} catch {
		// not JSON: its text
	}
	return apiKey && holdsKey(text, apiKey) ? redactDeep(answer, apiKey) : answer;
}

/** How deep brackets nest in a JSON text (brackets inside strings not counted). */
function nestingDepth(text: string): number {
	let [depth, deepest, inString] = [0, 0, false];
	for (let at = 0; at < text.length; at++) {
		const code = text.charCodeAt(at);
		if (inString) {
			if (code === 92)
				at++; // a backslash: skip the escaped character
			else if (code === 34) inString = false;
		} else if (code === 34) inString = true;
		else if (code === 91 || code === 123) deepest = Math.max(deepest, ++depth);
		else if (code === 93 || code === 125) depth--;
	}
	return deepest;
}

/** The body's chunks within `bounds`; the body is destroyed when a bound or Stop ends it. */
async function readBounded(
	body: AsyncIterable<Uint8Array | string>,
	bounds: ReadBounds,
): Promise<Uint8Array[]> {
	const hangUp = (reason: Error) => (body as { destroy?: (e: Error) => void }).destroy?.(reason);
	const clock = new AbortController();
	let late: AnswerBoundReached | undefined;
	wait(ANSWER_LIMITS.readMs, clock.signal).then(
		() => {
			const seconds = ANSWER_LIMITS.readMs / 1000;
			late = new AnswerBoundReached(
				`BotDojo's answer took longer than ${seconds} s to arrive and was cut off (the longest an answer may take)`,
			);
			hangUp(late);
		},
		() => undefined,
	);
	const onStop = () => hangUp(new Error('canceled'));
	bounds.signal?.addEventListener('abort', onStop, { once: true });
	const chunks: Uint8Array[] = [];
	let size = 0;
	try {
		for await (const chunk of body) {
			const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
			size += buffer.length;
			if (size <= bounds.maxBytes) chunks.push(buffer);
			else if (bounds.cut) {
				chunks.push(buffer.subarray(0, buffer.length - (size - bounds.maxBytes)));
				break; // leaving the loop hangs up
			} else {
				const mib = Math.round(bounds.maxBytes / 1024 / 1024);
				throw new AnswerBoundReached(
					`BotDojo's answer is larger than ${mib} MiB and was refused rather than held in memory (the largest answer read whole)`,
				);
			}
		}
	} catch (error) {
		if (!bounds.cut) throw late ?? error; // an error answer is quoted as far as it came
	} finally {
		clock.abort(WAIT_NOT_NEEDED);
		bounds.signal?.removeEventListener('abort', onStop);
	}
	return chunks;
}
