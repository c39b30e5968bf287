/**
 * The one way to BotDojo's API: the credential (project.ts) through n8n's helper, no redirect
 * followed, only 429/503 retried, every answer read within bounds.ts's limits, failures worded
 * by errors.ts. api.ts calls it; nothing else sends.
 */
import type { IDataObject, IHttpRequestMethods, IHttpRequestOptions } from 'n8n-workflow';

import { beginWithin, readAnswer, wait } from './bounds';
import { AnswerBoundReached, AnswerBrokeOffError, apiError, transportError } from './errors';
import { CREDENTIAL_TYPE, projectUrl, readCredentialOfRun, withCancelSignal } from './project';
import type {
	BotDojoContext,
	Endpoint,
	FullResponse,
	RequestSettings,
	RetryPolicy,
} from './project';

export const DEFAULT_RETRY: RetryPolicy = { maxAttempts: 4, maxTotalWaitMs: 60_000 };

/** The first answer BotDojo accepted, its body read and parsed here (n8n's parsing keeps about
 *  twice an answer alive: docs/performance.md), or with `readByCaller` left to a run to read. */
export async function sendWithRetries(
	ctx: BotDojoContext,
	method: IHttpRequestMethods,
	endpoint: Endpoint,
	body: IDataObject | FormData | { params: unknown[] },
	settings: RequestSettings = {},
): Promise<FullResponse> {
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
		abortSignal,
		encoding: 'stream',
		// Following a redirect would send the key (and the body) again, maybe elsewhere.
		disableFollowRedirect: true,
		sendCredentialsOnCrossOriginRedirect: false,
	};
	// n8n's helper (2.x) puts the context's cancel signal on the request in place of its own.
	const send = async (signal?: AbortSignal) => {
		const sender = signal ? withCancelSignal(ctx, signal) : ctx;
		const sent = signal ? { ...options, abortSignal: signal } : options;
		const helper = sender.helpers.httpRequestWithAuthentication;
		return (await helper.call(sender, CREDENTIAL_TYPE, sent, auth)) as FullResponse;
	};
	// An upload's wait for its status includes sending the file.
	const uploadBytes = isForm ? formBytes(body) : 0;
	const refusal = async ({ statusCode, headers, body: answer }: FullResponse, attempts: number) => {
		const said = await readAnswer(answer, { error: true, signal: abortSignal });
		const [retryAfter, location] = [header(headers, 'retry-after'), header(headers, 'location')];
		const facts = { attempts, retryAfter, url: options.url, location };
		return apiError(ctx, statusCode, said, credentials, settings, facts);
	};
	const response = await retryWhileRateLimited({
		send: async () => {
			// A run's deadline bounds its wait (its Timeout) and it reads its own answer.
			if (settings.readByCaller) return await send();
			const response = await beginWithin(send, abortSignal, uploadBytes);
			if (response.statusCode >= 300) return response;
			// Read inside the attempt, so that a connection broken mid-answer is a network failure.
			const read = await readAnswer(response.body, { signal: abortSignal }).catch(async (error) => {
				const ownWords = abortSignal?.aborted || error instanceof AnswerBoundReached;
				return await Promise.reject(ownWords ? error : new AnswerBrokeOffError(error));
			});
			return { ...response, body: read };
		},
		retry: settings.retry ?? DEFAULT_RETRY,
		abortSignal,
		networkError: (error, waiting) => transportError(ctx, error, credentials, settings, waiting),
		refusal,
	});
	if (response.statusCode >= 300) throw await refusal(response, 1);
	return response;
}

/** One request, sent again while the answer is 429 or 503 (BotDojo did not act on it):
 *  `networkError` words a failure with no answer (`waiting`: in a Retry-After wait), `refusal`
 *  an answer of 400 or more not retried. */
interface RateLimitedRequest {
	send(): Promise<FullResponse>;
	retry: RetryPolicy;
	abortSignal?: AbortSignal;
	networkError(error: unknown, waiting: boolean): Error;
	refusal(response: FullResponse, attempts: number): Promise<Error> | Error;
}

/** Returns the first answer below 400; waits honour Retry-After within the policy. */
export async function retryWhileRateLimited(request: RateLimitedRequest): Promise<FullResponse> {
	const { retry, abortSignal } = request;
	const failure = (waiting: boolean) => (error: unknown) => {
		throw request.networkError(error, waiting);
	};
	let waited = 0;
	for (let attempt = 1; ; attempt++) {
		const response = await request.send().catch(failure(false));
		if (response.statusCode < 400) return response;
		const retryAfter = parseRetryAfter(header(response.headers, 'retry-after'));
		const delay = retryAfter ?? Math.min(1000 * 2 ** (attempt - 1), 8000);
		const retried = response.statusCode === 429 || response.statusCode === 503;
		if (!retried || attempt >= retry.maxAttempts || waited + delay > retry.maxTotalWaitMs)
			throw await request.refusal(response, attempt);
		await readAnswer(response.body, { error: true, signal: abortSignal }); // bounded, dropped
		waited += delay;
		await wait(delay, abortSignal ?? new AbortController().signal).catch(failure(true));
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

/** The bytes a form sends, its multipart framing aside. */
function formBytes(form: FormData): number {
	let bytes = 0;
	form.forEach((value) => (bytes += typeof value === 'string' ? value.length : value.size));
	return bytes;
}
