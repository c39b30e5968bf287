/**
 * Sending requests to BotDojo: positional bodies, authentication through n8n's helper with the
 * credential read once per execution (project.ts), answer unwrapping, the safe retries
 * (retries.ts) and the mapping of failures (errors.ts, networkErrors.ts).
 */
import {
	type IDataObject,
	type IExecuteFunctions,
	type IHttpRequestMethods,
	type IHttpRequestOptions,
} from 'n8n-workflow';

import { apiError } from './errors';
import { AnswerBoundReached, AnswerBrokeOffError, transportError } from './networkErrors';
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
 * The positional body `{ params: [...] }`: trailing absent parameters are left out,
 * an absent parameter before a present one is sent as `null`.
 */
export function positionalBody(params: readonly unknown[]): { params: unknown[] } {
	let length = params.length;
	while (length > 0 && (params[length - 1] === undefined || params[length - 1] === null)) length--;
	return { params: params.slice(0, length).map((value) => (value === undefined ? null : value)) };
}

/** Positional endpoints wrap their answer in `{ results }`, sometimes with more beside it
 *  (e.g. `success: true`); some do not wrap it. Read both. */
export function unwrapResults<T = unknown>(answer: unknown): T {
	if (
		answer !== null &&
		typeof answer === 'object' &&
		!Array.isArray(answer) &&
		Object.prototype.hasOwnProperty.call(answer, 'results')
	) {
		return (answer as { results: T }).results;
	}
	return answer as T;
}

/**
 * Calls a positional-parameter endpoint (POST `{ params }`) and returns its answer as sent. The
 * answer is parsed here from the response stream: n8n's helper parsing it keeps about twice its
 * size alive until V8 collects it, which an export of 1M records pays page after page (peak RSS
 * growth in n8n's engine 157 MB against 67 MB, and less CPU; docs/performance.md).
 */
export async function positionalRequest(
	ctx: BotDojoContext,
	endpoint: Endpoint,
	params: readonly unknown[],
	settings: RequestSettings = {},
): Promise<unknown> {
	return await botDojoRequest(ctx, 'POST', endpoint, positionalBody(params), settings);
}

/** Sends one request to a project endpoint, retrying 429/503 answers, and maps failures. */
export async function botDojoRequest(
	...request: Parameters<typeof sendWithRetries>
): Promise<unknown> {
	const response = await sendWithRetries(...request);
	return response.body;
}

/**
 * The one way to BotDojo's API: the request with the credential, no redirect followed (a 3xx
 * is an error: the key goes only to the Base URL), 429/503 retried within Retry-After, the
 * answer read within ANSWER_LIMITS, failures mapped. Returns the first answer BotDojo accepted;
 * with `settings.readByCaller` its body is left as a stream for the caller (a run) to read.
 */
export async function sendWithRetries(
	ctx: BotDojoContext,
	method: IHttpRequestMethods,
	endpoint: Endpoint,
	body: IDataObject | FormData | { params: unknown[] },
	settings: RequestSettings = {},
): Promise<FullResponse> {
	const { fields: credentials, auth } = await readCredentialOfRun(ctx);
	const abortSignal = cancelSignalOf(ctx, settings);
	const isForm = body instanceof FormData;
	const options: IHttpRequestOptions = {
		method,
		url: projectUrl(credentials, endpoint),
		// JSON is sent as text: n8n deep-copies an object body and drops keys such as `__proto__`
		// and `constructor` on the way, which are the user's field and variable names here.
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
	const refusal = async (response: FullResponse, attempts: number) =>
		apiError(
			ctx,
			response.statusCode,
			await readErrorBody(response.body, abortSignal),
			credentials,
			settings,
			{
				attempts,
				retryAfter: header(response.headers, 'retry-after'),
				url: options.url,
				location: header(response.headers, 'location'),
			},
		);

	const response = await retryWhileRateLimited({
		send: async () => {
			const response = (await ctx.helpers.httpRequestWithAuthentication.call(
				ctx,
				CREDENTIAL_TYPE,
				options,
				auth,
			)) as FullResponse;
			// Read inside the attempt, so that a connection broken mid-answer maps as a network
			// failure (a Stop stays a Stop). An error answer stays a stream for refusal to read.
			if (settings.readByCaller || response.statusCode >= 300) return response;
			try {
				const bounds = answerBounds(abortSignal);
				const answer = await readAnswer(response.body, { ...bounds, apiKey: credentials.apiKey });
				return { ...response, body: answer };
			} catch (error) {
				const ownWords = abortSignal?.aborted || error instanceof AnswerBoundReached;
				throw ownWords ? error : new AnswerBrokeOffError(error);
			}
		},
		retry: settings.retry ?? DEFAULT_RETRY,
		abortSignal,
		drain: async (response) => void (await readErrorBody(response.body, abortSignal)),
		// A Stop during a Retry-After wait is safe to retry: nothing ran yet.
		networkError: (error, waiting) => transportError(ctx, error, credentials, settings, waiting),
		refusal,
	});
	if (response.statusCode >= 300) throw await refusal(response, 1);
	return response;
}

function answerBounds(signal: AbortSignal | undefined) {
	return { maxBytes: ANSWER_LIMITS.answerBytes, signal };
}

/**
 * What ends a request and its Retry-After waits: the caller's signal (a run's own, linked to
 * Stop), else the execution's Stop, so that no node can forget it. n8n's helper sets the
 * execution's signal on the request itself, but a Retry-After wait is the transport's own.
 */
function cancelSignalOf(ctx: BotDojoContext, settings: RequestSettings): AbortSignal | undefined {
	const execution = ctx as Partial<Pick<IExecuteFunctions, 'getExecutionCancelSignal'>>;
	return settings.abortSignal ?? execution.getExecutionCancelSignal?.();
}

/**
 * The bounds of every read of an answer of BotDojo (README, "Limits"). A reached bound names
 * itself. Tests lower them on this object; the product only reads it.
 */
export const ANSWER_LIMITS = {
	/** An error answer (also a 429/503 one): its first 64 KiB are kept to quote BotDojo's words. */
	errorBytes: 64 * 1024,
	/** A whole JSON answer (an export page, a record, a status): 128 MiB. */
	answerBytes: 128 * 1024 * 1024,
	/** Longest a body may take to arrive once its status came, in ms: 60 s. */
	readMs: 60_000,
};

/** A streamed error answer: its first ANSWER_LIMITS.errorBytes, read for at most readMs. */
export async function readErrorBody(body: unknown, signal?: AbortSignal): Promise<unknown> {
	return await readAnswer(body, { maxBytes: ANSWER_LIMITS.errorBytes, cut: true, signal });
}

interface ReadBounds {
	maxBytes: number;
	/** Past maxBytes, keep what arrived and hang up (an error answer) rather than refuse it. */
	cut?: boolean;
	/** Stop: ends the read at once. */
	signal?: AbortSignal;
	/** The key to redact from a successful answer (records BotDojo stored may quote it). */
	apiKey?: string;
}

/**
 * A streamed answer, read within its bounds and parsed as n8n's helper would: JSON when it is
 * JSON, else its text. A body n8n already parsed is returned as it is.
 */
export async function readAnswer(
	body: unknown,
	bounds: ReadBounds = { maxBytes: ANSWER_LIMITS.answerBytes },
): Promise<unknown> {
	if (!isReadable(body)) return body;
	const chunks = await readBounded(body, bounds);
	const text = Buffer.concat(chunks)
		.toString('utf8')
		.replace(/^\uFEFF/, '');
	// A cut error answer may nest deeper than anything reading it can follow: its text is quoted.
	if (bounds.cut && nestingDepth(text) > MAX_ERROR_DEPTH) return text;
	const answer = parsedOrText(text);
	// Records may quote the key (a flow's logs, a stored request): the nodes output them as data.
	return bounds.apiKey && holdsKey(text, bounds.apiKey) ? redactDeep(answer, bounds.apiKey) : answer;
}

function parsedOrText(text: string): unknown {
	try {
		return JSON.parse(text);
	} catch {
		return text;
	}
}

/** Deeper error answers are quoted as text: nothing that reads them recurses further. */
const MAX_ERROR_DEPTH = 64;

/** How deep brackets nest in a JSON text (brackets inside strings not counted). */
export function nestingDepth(text: string): number {
	let depth = 0;
	let deepest = 0;
	let inString = false;
	for (let at = 0; at < text.length; at++) {
		const code = text.charCodeAt(at);
		if (inString) {
			if (code === 92)
				at++; // backslash: skip the escaped character
			else if (code === 34) inString = false;
		} else if (code === 34) inString = true;
		else if (code === 91 || code === 123) deepest = Math.max(deepest, ++depth);
		else if (code === 93 || code === 125) depth--;
	}
	return deepest;
}

/** The body's chunks, within `bounds`; the body is destroyed when a bound or Stop ends it. */
async function readBounded(
	body: AsyncIterable<Uint8Array | string>,
	bounds: ReadBounds,
): Promise<Uint8Array[]> {
	const hangUp = (reason: Error) => (body as { destroy?: (e: Error) => void }).destroy?.(reason);
	const clock = new AbortController();
	let late: AnswerBoundReached | undefined;
	const seconds = ANSWER_LIMITS.readMs / 1000;
	wait(ANSWER_LIMITS.readMs, clock.signal).then(
		() => {
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
			if (size > bounds.maxBytes) {
				if (!bounds.cut) {
					const mib = Math.round(bounds.maxBytes / 1024 / 1024);
					throw new AnswerBoundReached(
						`BotDojo's answer is larger than ${mib} MiB and was refused rather than held in memory (the largest answer read whole)`,
					);
				}
				chunks.push(buffer.subarray(0, buffer.length - (size - bounds.maxBytes)));
				break; // leaving the loop hangs up
			}
			chunks.push(buffer);
		}
	} catch (error) {
		// An error answer is quoted as far as it came (cut off, dropped or stopped).
		if (bounds.cut) return chunks;
		throw late ?? error;
	} finally {
		clock.abort(WAIT_NOT_NEEDED);
		bounds.signal?.removeEventListener('abort', onStop);
	}
	return chunks;
}

// Retries: the only safe ones are 429 and 503, both mean BotDojo did not act on the request.
/** The signal of a wait that nothing ends early. */
const NEVER_ABORTED = new AbortController().signal;

export const DEFAULT_RETRY: RetryPolicy = { maxAttempts: 4, maxTotalWaitMs: 60_000 };

/** One request, sent again while the answer is 429 or 503, with its own failure mapping. */
export interface RateLimitedRequest {
	send(): Promise<FullResponse>;
	retry: RetryPolicy;
	/** Ends a Retry-After wait at once (the execution's Stop). */
	abortSignal?: AbortSignal;
	/** Reads (within its bounds) or drops the body of a 429/503 that is retried. */
	drain(response: FullResponse): Promise<void>;
	/** A failure with no answer; `waiting` when it happened during a Retry-After wait. */
	networkError(error: unknown, waiting: boolean): Error;
	/** An answer that is not retried. */
	refusal(response: FullResponse, attempts: number): Promise<Error> | Error;
}

/** Returns the first answer below 400; any other answer but a retried 429/503 is a refusal. */
export async function retryWhileRateLimited(request: RateLimitedRequest): Promise<FullResponse> {
	let waited = 0;
	for (let attempt = 1; ; attempt++) {
		let response: FullResponse;
		try {
			response = await request.send();
		} catch (error) {
			throw request.networkError(error, false);
		}
		if (response.statusCode < 400) return response;

		const delay = retryDelayMs(response, attempt, request.retry, waited);
		if (delay === undefined) throw await request.refusal(response, attempt);
		await request.drain(response);
		waited += delay;
		try {
			await wait(delay, request.abortSignal ?? NEVER_ABORTED);
		} catch (error) {
			throw request.networkError(error, true);
		}
	}
}

/** How long to wait before the next attempt, or undefined when the answer must not be retried. */
function retryDelayMs(
	response: FullResponse,
	attempt: number,
	retry: RetryPolicy,
	waitedSoFar: number,
): number | undefined {
	if (response.statusCode !== 429 && response.statusCode !== 503) return undefined;
	if (attempt >= retry.maxAttempts) return undefined;
	const retryAfter = parseRetryAfter(header(response.headers, 'retry-after'));
	const wait = retryAfter ?? Math.min(1000 * 2 ** (attempt - 1), 8000);
	return waitedSoFar + wait > retry.maxTotalWaitMs ? undefined : wait;
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
