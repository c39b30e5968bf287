/**
 * The only retries that are safe: 429 and 503 both mean BotDojo did not act on the request.
 * Waits honour Retry-After within the policy's bounds and end at once on Stop.
 */
import type { FullResponse, RetryPolicy } from './project';
import { wait } from './runDeadline';

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
