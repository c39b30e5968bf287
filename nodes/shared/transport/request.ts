/**
 * Sending requests to BotDojo: URLs from the credentials, authentication through n8n's helper,
 * positional bodies, answer unwrapping, and the only retries that are safe (429 and 503).
 */
import {
	NodeOperationError,
	sleep,
	type IDataObject,
	type IHttpRequestMethods,
	type IHttpRequestOptions,
} from 'n8n-workflow';

import { apiError, transportError } from './errors';
import type {
	BotDojoContext,
	Endpoint,
	FullResponse,
	ProjectCredentials,
	RequestSettings,
	RetryPolicy,
} from './types';

export type {
	BotDojoContext,
	Endpoint,
	FullResponse,
	ProjectCredentials,
	RequestSettings,
	RequestSubject,
	RetryPolicy,
} from './types';

export const CREDENTIAL_TYPE = 'botDojoApi';

export const DEFAULT_RETRY: RetryPolicy = { maxAttempts: 4, maxTotalWaitMs: 60_000 };

/** Credentials read once per node execution (one context object), not once per request. */
const credentialsOfRun = new WeakMap<object, Promise<ProjectCredentials>>();

/** The credential's fields, with a Base URL that is checked before anything is sent. */
export async function readCredentials(ctx: BotDojoContext): Promise<ProjectCredentials> {
	let pending = credentialsOfRun.get(ctx);
	if (!pending) {
		pending = ctx.getCredentials(CREDENTIAL_TYPE).then((credentials) => ({
			baseUrl: String(credentials.baseUrl ?? '').trim(),
			accountId: String(credentials.accountId ?? '').trim(),
			projectId: String(credentials.projectId ?? '').trim(),
			apiKey: String(credentials.apiKey ?? ''),
		}));
		credentialsOfRun.set(ctx, pending);
		pending.catch(() => credentialsOfRun.delete(ctx));
	}
	const credentials = await pending;
	const problem = baseUrlProblem(credentials.baseUrl);
	if (problem) {
		throw new NodeOperationError(
			ctx.getNode(),
			`The Base URL of the BotDojo API credential ${problem}`,
			{
				description:
					'Open the credential and enter the address of the BotDojo API with its scheme, e.g. https://api.botdojo.com/api/v1. No request was sent.',
			},
		);
	}
	return credentials;
}

/** Why a Base URL cannot be used, or undefined when it can. */
export function baseUrlProblem(baseUrl: string): string | undefined {
	if (baseUrl === '') return 'is empty';
	if (!/^https?:\/\//i.test(baseUrl)) return `"${baseUrl}" does not start with https://`;
	try {
		new URL(baseUrl);
	} catch {
		return `"${baseUrl}" is not a valid address`;
	}
	return undefined;
}

/** `{base}/accounts/{account}/projects/{project}/{segments...}`, every segment URL-encoded. */
export function projectUrl(
	credentials: Pick<ProjectCredentials, 'baseUrl' | 'accountId' | 'projectId'>,
	segments: readonly string[],
): string {
	const base = credentials.baseUrl.replace(/\/+$/, '');
	const path = ['accounts', credentials.accountId, 'projects', credentials.projectId, ...segments];
	return `${base}/${path.map(encodeURIComponent).join('/')}`;
}

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

/** Calls a positional-parameter endpoint (POST `{ params }`) and returns its answer as sent. */
export async function positionalRequest(
	this: BotDojoContext,
	endpoint: Endpoint,
	params: readonly unknown[],
	settings: RequestSettings = {},
): Promise<unknown> {
	return await botDojoRequest.call(this, 'POST', endpoint, positionalBody(params), settings);
}

/** Sends one request to a project endpoint, retrying 429/503 answers, and maps failures. */
export async function botDojoRequest(
	this: BotDojoContext,
	...request: Parameters<typeof sendWithRetries>
): Promise<unknown> {
	const response = await sendWithRetries.call(this, ...request);
	return response.body;
}

/** Sends the request and returns the full response of the first attempt that BotDojo accepted. */
export async function sendWithRetries(
	this: BotDojoContext,
	method: IHttpRequestMethods,
	endpoint: Endpoint,
	body: IDataObject | FormData | { params: unknown[] },
	settings: RequestSettings = {},
	extra: Partial<IHttpRequestOptions> = {},
): Promise<FullResponse> {
	const credentials = await readCredentials(this);
	const options: IHttpRequestOptions = {
		method,
		url: projectUrl(credentials, endpoint),
		body: body as IDataObject,
		json: !(body instanceof FormData),
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
		timeout: settings.timeout,
		abortSignal: settings.abortSignal,
		...extra,
	};

	return await retryWhileRateLimited({
		send: async () =>
			(await this.helpers.httpRequestWithAuthentication.call(
				this,
				CREDENTIAL_TYPE,
				options,
			)) as FullResponse,
		retry: settings.retry ?? DEFAULT_RETRY,
		abortSignal: settings.abortSignal,
		// A Stop during a Retry-After wait is safe to retry: nothing ran yet.
		networkError: (error, waiting) => transportError(this, error, credentials, settings, waiting),
		refusal: async (response, attempts) =>
			apiError(
				this,
				response.statusCode,
				await readErrorBody(response.body),
				credentials,
				settings,
				{
					attempts,
					retryAfter: header(response.headers, 'retry-after'),
					url: options.url,
				},
			),
	});
}

/** One request, sent again while the answer is 429 or 503, with its own failure mapping. */
export interface RateLimitedRequest {
	send(): Promise<FullResponse>;
	retry: RetryPolicy;
	/** Ends a Retry-After wait at once (the execution's Stop). */
	abortSignal?: AbortSignal;
	/** A failure with no answer; `waiting` when it happened during a Retry-After wait. */
	networkError(error: unknown, waiting: boolean): Error;
	/** An answer that is not retried. */
	refusal(response: FullResponse, attempts: number): Promise<Error> | Error;
}

/**
 * Returns the first answer below 400. Only 429 and 503 are retried: both mean the service did
 * not act on the request. Waits honour Retry-After within the policy's bounds.
 */
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

		const wait = retryDelayMs(response, attempt, request.retry, waited);
		if (wait === undefined) throw await request.refusal(response, attempt);
		await drain(response.body);
		waited += wait;
		try {
			await sleep(wait, request.abortSignal);
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

/** A streamed error answer is read (up to 64 KiB) so its message can be shown. */
async function readErrorBody(body: unknown): Promise<unknown> {
	if (!isReadable(body)) return body;
	const chunks: Uint8Array[] = [];
	let size = 0;
	for await (const chunk of body) {
		const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
		if (size < 65_536) chunks.push(buffer);
		size += buffer.length;
	}
	const text = Buffer.concat(chunks).toString('utf8');
	try {
		return JSON.parse(text);
	} catch {
		return text;
	}
}

async function drain(body: unknown): Promise<void> {
	if (isReadable(body)) for await (const _chunk of body) void _chunk;
}
