/**
 * Sending requests to BotDojo: positional bodies, authentication through n8n's helper with the
 * credential read once per execution (project.ts), answer unwrapping, the safe retries
 * (retries.ts) and the mapping of failures (errors.ts).
 */
import {
	type IDataObject,
	type IExecuteFunctions,
	type IHttpRequestMethods,
	type IHttpRequestOptions,
} from 'n8n-workflow';

import { AnswerBrokeOffError, apiError, transportError } from './errors';
import { CREDENTIAL_TYPE, readCredentialOfRun, projectUrl } from './project';
import { DEFAULT_RETRY, header, isReadable, retryWhileRateLimited } from './retries';
import type { BotDojoContext, Endpoint, FullResponse, RequestSettings } from './types';

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
	const streamed = { ...settings, jsonFromStream: true };
	return await botDojoRequest(ctx, 'POST', endpoint, positionalBody(params), streamed);
}

/** Sends one request to a project endpoint, retrying 429/503 answers, and maps failures. */
export async function botDojoRequest(
	...request: Parameters<typeof sendWithRetries>
): Promise<unknown> {
	const response = await sendWithRetries(...request);
	return response.body;
}

/** Sends the request and returns the full response of the first attempt that BotDojo accepted. */
export async function sendWithRetries(
	ctx: BotDojoContext,
	method: IHttpRequestMethods,
	endpoint: Endpoint,
	body: IDataObject | FormData | { params: unknown[] },
	settings: RequestSettings = {},
	extra: Partial<IHttpRequestOptions> = {},
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
		...(settings.jsonFromStream ? { encoding: 'stream' as const } : {}),
		...extra,
	};

	return await retryWhileRateLimited({
		send: async () => {
			const response = (await ctx.helpers.httpRequestWithAuthentication.call(
				ctx,
				CREDENTIAL_TYPE,
				options,
				auth,
			)) as FullResponse;
			// Read inside the attempt, so that a connection broken mid-answer maps as a network
			// failure (a Stop stays a Stop). An error answer stays a stream: readErrorBody reads no more than it shows.
			if (!settings.jsonFromStream || response.statusCode >= 400) return response;
			try {
				return { ...response, body: await readAnswer(response.body) };
			} catch (error) {
				throw abortSignal?.aborted ? error : new AnswerBrokeOffError(error);
			}
		},
		retry: settings.retry ?? DEFAULT_RETRY,
		abortSignal,
		// A Stop during a Retry-After wait is safe to retry: nothing ran yet.
		networkError: (error, waiting) => transportError(ctx, error, credentials, settings, waiting),
		refusal: async (response, attempts) =>
			apiError(
				ctx,
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

/**
 * What ends a request and its Retry-After waits: the caller's signal (a run's own, linked to
 * Stop), else the execution's Stop, so that no node can forget it. n8n's helper sets the
 * execution's signal on the request itself, but a Retry-After wait is the transport's own.
 */
function cancelSignalOf(ctx: BotDojoContext, settings: RequestSettings): AbortSignal | undefined {
	const execution = ctx as Partial<Pick<IExecuteFunctions, 'getExecutionCancelSignal'>>;
	return settings.abortSignal ?? execution.getExecutionCancelSignal?.();
}

/** A streamed error answer is read (up to 64 KiB) so its message can be shown. */
export async function readErrorBody(body: unknown): Promise<unknown> {
	return await readAnswer(body, 65_536);
}

/**
 * A streamed answer, read whole (or its first `keepBytes`) and parsed as n8n's helper would:
 * JSON when it is JSON, else its text. A body n8n already parsed is returned as it is.
 */
export async function readAnswer(
	body: unknown,
	keepBytes = Number.POSITIVE_INFINITY,
): Promise<unknown> {
	if (!isReadable(body)) return body;
	const chunks: Uint8Array[] = [];
	let size = 0;
	for await (const chunk of body) {
		const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
		if (size < keepBytes) chunks.push(buffer);
		size += buffer.length;
	}
	const text = Buffer.concat(chunks)
		.toString('utf8')
		.replace(/^\uFEFF/, '');
	try {
		return JSON.parse(text);
	} catch {
		return text;
	}
}
