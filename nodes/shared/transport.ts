/**
 * The one place that talks to BotDojo: URLs, authentication, positional bodies,
 * answer unwrapping, error mapping and the retries that are safe.
 */
import {
	NodeApiError,
	sleep,
	type IDataObject,
	type IExecuteFunctions,
	type IExecuteSingleFunctions,
	type IHttpRequestMethods,
	type IHttpRequestOptions,
	type ILoadOptionsFunctions,
	type IN8nHttpFullResponse,
	type INodeExecutionData,
	type IPollFunctions,
	type JsonObject,
} from 'n8n-workflow';

export const CREDENTIAL_TYPE = 'botDojoApi';

export type BotDojoContext =
	| IExecuteFunctions
	| IExecuteSingleFunctions
	| IPollFunctions
	| ILoadOptionsFunctions;

/** Ids that a request used, so that a 404 can say which of them BotDojo did not find. */
export interface RequestSubject {
	flowId?: string;
	sessionId?: string;
	indexId?: string;
	logicalPath?: string;
	documentId?: string;
}

export interface RequestSettings {
	subject?: RequestSubject;
	itemIndex?: number;
	/** Whether a failure after the request was accepted may be retried (false for running a flow). */
	repeatable?: boolean;
	/** Total timeout in milliseconds. */
	timeout?: number;
	abortSignal?: AbortSignal;
	retry?: RetryPolicy;
}

export interface RetryPolicy {
	/** Attempts in all, the first included. */
	maxAttempts: number;
	/** Longest wait the retries may add up to, in milliseconds. */
	maxTotalWaitMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { maxAttempts: 4, maxTotalWaitMs: 60_000 };

interface ProjectCredentials {
	baseUrl: string;
	accountId: string;
	projectId: string;
	apiKey: string;
}

interface FullResponse {
	statusCode: number;
	headers: Record<string, string | string[] | undefined>;
	body: unknown;
}

async function readCredentials(ctx: BotDojoContext): Promise<ProjectCredentials> {
	const credentials = await ctx.getCredentials(CREDENTIAL_TYPE);
	return {
		baseUrl: String(credentials.baseUrl ?? '').trim(),
		accountId: String(credentials.accountId ?? '').trim(),
		projectId: String(credentials.projectId ?? '').trim(),
		apiKey: String(credentials.apiKey ?? ''),
	};
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

/** An endpoint as path segments below the project; ids among them are encoded by projectUrl. */
export type Endpoint = readonly string[];

/**
 * The positional body `{ params: [...] }`: trailing absent parameters are left out,
 * an absent parameter before a present one is sent as `null`.
 */
export function positionalBody(params: readonly unknown[]): { params: unknown[] } {
	let length = params.length;
	while (length > 0 && (params[length - 1] === undefined || params[length - 1] === null)) length--;
	return { params: params.slice(0, length).map((value) => (value === undefined ? null : value)) };
}

/** Most positional endpoints wrap their answer in `{ results }`; some do not. Read both. */
export function unwrapResults<T = unknown>(answer: unknown): T {
	if (
		answer !== null &&
		typeof answer === 'object' &&
		!Array.isArray(answer) &&
		Object.prototype.hasOwnProperty.call(answer, 'results') &&
		Object.keys(answer).length === 1
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
	method: IHttpRequestMethods,
	endpoint: Endpoint,
	body: IDataObject | FormData | { params: unknown[] },
	settings: RequestSettings = {},
	extra: Partial<IHttpRequestOptions> = {},
): Promise<unknown> {
	const response = await sendWithRetries.call(this, method, endpoint, body, settings, extra);
	return response.body;
}

/**
 * Sends the request and returns the full response of the first attempt that BotDojo accepted.
 * Only 429 and 503 are retried: both mean the service did not act on the request.
 */
export async function sendWithRetries(
	this: BotDojoContext,
	method: IHttpRequestMethods,
	endpoint: Endpoint,
	body: IDataObject | FormData | { params: unknown[] },
	settings: RequestSettings = {},
	extra: Partial<IHttpRequestOptions> = {},
): Promise<FullResponse> {
	const credentials = await readCredentials(this);
	const retry = settings.retry ?? DEFAULT_RETRY;
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

	let waited = 0;
	for (let attempt = 1; ; attempt++) {
		let response: FullResponse;
		try {
			response = (await this.helpers.httpRequestWithAuthentication.call(
				this,
				CREDENTIAL_TYPE,
				options,
			)) as FullResponse;
		} catch (error) {
			throw transportError(this, error, credentials, settings);
		}
		if (response.statusCode < 400) return response;

		const wait = retryDelayMs(response, attempt, retry, waited);
		if (wait === undefined) {
			const details = await readErrorBody(response.body);
			throw apiError(this, response.statusCode, details, credentials, settings, {
				attempts: attempt,
				retryAfter: header(response.headers, 'retry-after'),
			});
		}
		await drain(response.body);
		waited += wait;
		await sleep(wait);
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

function header(headers: FullResponse['headers'], name: string): string | undefined {
	const value = headers?.[name] ?? headers?.[name.toLowerCase()];
	return Array.isArray(value) ? value[0] : value;
}

function isReadable(body: unknown): body is AsyncIterable<Buffer | string> {
	return body !== null && typeof body === 'object' && Symbol.asyncIterator in body;
}

/** A streamed error answer is read (up to 64 KiB) so its message can be shown. */
async function readErrorBody(body: unknown): Promise<unknown> {
	if (!isReadable(body)) return body;
	const chunks: Buffer[] = [];
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

/** The service's own words about a failure, from any of the error shapes seen in the wild. */
export function serviceMessage(body: unknown): string | undefined {
	if (typeof body === 'string') return body.trim() ? body.trim().slice(0, 500) : undefined;
	if (body === null || typeof body !== 'object') return undefined;
	const record = body as Record<string, unknown>;
	for (const key of ['error', 'message', 'detail', 'error_description']) {
		const value = record[key];
		if (typeof value === 'string' && value.trim()) return value.trim();
		if (value && typeof value === 'object') {
			const nested = serviceMessage(value);
			if (nested) return nested;
		}
	}
	return undefined;
}

function redact(text: string, apiKey: string): string {
	return apiKey.length >= 4 ? text.split(apiKey).join('***') : text;
}

function describeSubject(credentials: ProjectCredentials, subject: RequestSubject = {}): string {
	const ids = [
		`account "${credentials.accountId}"`,
		`project "${credentials.projectId}"`,
		subject.flowId !== undefined && `flow "${subject.flowId}"`,
		subject.sessionId !== undefined && `session "${subject.sessionId}"`,
		subject.indexId !== undefined && `index "${subject.indexId}"`,
		subject.documentId !== undefined && `document "${subject.documentId}"`,
		subject.logicalPath !== undefined && `logical path "${subject.logicalPath}"`,
	].filter(Boolean);
	return ids.join(', ');
}

interface FailureFacts {
	attempts: number;
	retryAfter?: string;
}

/** Maps an HTTP failure to a NodeApiError whose message a non-programmer can act on. */
export function apiError(
	ctx: BotDojoContext,
	statusCode: number,
	body: unknown,
	credentials: ProjectCredentials,
	settings: RequestSettings,
	facts: FailureFacts,
): NodeApiError {
	const said = serviceMessage(body);
	const saidLine = said ? `BotDojo said: "${said}". ` : '';
	const used = describeSubject(credentials, settings.subject);
	const repeatable = settings.repeatable !== false;
	let message: string;
	let description: string;
	let safeToRetry: boolean;

	switch (true) {
		case statusCode === 400:
			message = `BotDojo refused the request as invalid${said ? `: ${said}` : ''}`;
			description = `Check the node's parameters. Ids used: ${used}.`;
			safeToRetry = true;
			break;
		case statusCode === 401:
			message = 'BotDojo rejected the API key (401)';
			description = `${saidLine}Open the BotDojo API credential and paste the key again, exactly as BotDojo showed it and without "Bearer". Keys are created under Project Settings → API Keys.`;
			safeToRetry = true;
			break;
		case statusCode === 403:
			message = 'The API key is not allowed to do this (403)';
			description = `${saidLine}A flow key can only run the one flow it was made for; every other flow, and documents, sessions, exports and indexes, need a project key. Uploading also needs a key with upload permission. Ids used: ${used}.`;
			safeToRetry = true;
			break;
		case statusCode === 404:
			message = `BotDojo could not find ${said ? `it: ${said}` : 'what was asked for'}`;
			description = `One of these does not exist or is not visible to this key: ${used}. Check the ids in the node and in the credential.`;
			safeToRetry = true;
			break;
		case statusCode === 429:
			message = 'BotDojo is limiting the request rate (429)';
			description = `${saidLine}Gave up after ${facts.attempts} attempt(s)${facts.retryAfter ? `; BotDojo asked to wait ${facts.retryAfter} s` : ''}. Lower the node's concurrency or run the workflow later.`;
			safeToRetry = true;
			break;
		case statusCode === 503:
			message = 'BotDojo is temporarily unavailable (503)';
			description = `${saidLine}Gave up after ${facts.attempts} attempt(s). Try again in a few minutes.`;
			safeToRetry = true;
			break;
		case statusCode >= 500:
			message = `BotDojo had an internal error (${statusCode})`;
			description = `${saidLine}${repeatable ? 'Try again later.' : 'The flow may already have run, so it was not retried automatically.'}`;
			safeToRetry = repeatable;
			break;
		default:
			message = `BotDojo answered with status ${statusCode}`;
			description = saidLine;
			safeToRetry = repeatable;
	}

	description += ` ${retryAdvice(safeToRetry)}`;
	return new NodeApiError(
		ctx.getNode(),
		{ statusCode, body: redactBody(body, credentials.apiKey) } as JsonObject,
		{
			message: redact(message, credentials.apiKey),
			description: redact(description.trim(), credentials.apiKey),
			httpCode: String(statusCode),
			itemIndex: settings.itemIndex,
		},
	);
}

export function retryAdvice(safeToRetry: boolean): string {
	return safeToRetry
		? 'Safe to retry: BotDojo did not run anything.'
		: 'Not safe to retry blindly: the flow may have run already, and running it again repeats what it does (e.g. sends an e-mail twice).';
}

function redactBody(body: unknown, apiKey: string): unknown {
	if (body === undefined) return null;
	return JSON.parse(redact(JSON.stringify(body) ?? 'null', apiKey));
}

/** A failure with no HTTP answer: refused connection, DNS, timeout, abort, dropped socket. */
function transportError(
	ctx: BotDojoContext,
	error: unknown,
	credentials: ProjectCredentials,
	settings: RequestSettings,
): NodeApiError {
	const code = (error as { code?: string })?.code ?? '';
	const raw = redact((error as Error)?.message ?? String(error), credentials.apiKey);
	const repeatable = settings.repeatable !== false;
	let message: string;
	let safeToRetry = repeatable;
	if (code === 'ECONNABORTED' || /timeout/i.test(raw)) {
		message = `BotDojo did not answer within the timeout${settings.timeout ? ` (${settings.timeout} ms)` : ''}`;
	} else if (code === 'ERR_CANCELED' || /aborted|canceled/i.test(raw)) {
		message = 'The request to BotDojo was cancelled';
	} else if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
		message = `Could not reach BotDojo at ${credentials.baseUrl} (${code})`;
		safeToRetry = true; // nothing was sent
	} else {
		message = `The connection to BotDojo failed${code ? ` (${code})` : ''}: ${raw}`;
	}
	return new NodeApiError(ctx.getNode(), { message: raw, code } as JsonObject, {
		message,
		description: `Check the Base URL in the BotDojo API credential and your network. ${retryAdvice(safeToRetry)}`,
		itemIndex: settings.itemIndex,
	});
}

/*
 * Declarative nodes: the routing engine sends the request, these hooks give it the same
 * URL, positional body and error mapping as the programmatic nodes.
 */

/** preSend hook: POST to `endpoint` with the positional body built from the node's parameters. */
export function positionalPreSend(
	endpoint: Endpoint,
	buildParams: (this: IExecuteSingleFunctions) => unknown[] | Promise<unknown[]>,
): PreSendAction {
	return async function (this: IExecuteSingleFunctions, requestOptions: IHttpRequestOptions) {
		const credentials = await readCredentials(this);
		return {
			...requestOptions,
			method: 'POST',
			url: projectUrl(credentials, endpoint),
			baseURL: undefined,
			body: positionalBody(await buildParams.call(this)),
			json: true,
			ignoreHttpStatusErrors: true,
		};
	};
}

type PreSendAction = (
	this: IExecuteSingleFunctions,
	requestOptions: IHttpRequestOptions,
) => Promise<IHttpRequestOptions>;

/**
 * postReceive hook: a failed answer becomes the same NodeApiError the programmatic nodes raise;
 * a good one is unwrapped from `{ results }` into one item per array element (or one item).
 */
export function positionalPostReceive(
	subjectOf: (this: IExecuteSingleFunctions) => RequestSubject,
) {
	return async function (
		this: IExecuteSingleFunctions,
		_items: INodeExecutionData[],
		response: IN8nHttpFullResponse,
	): Promise<INodeExecutionData[]> {
		if (response.statusCode >= 400) {
			const credentials = await readCredentials(this);
			throw apiError(
				this,
				response.statusCode,
				response.body,
				credentials,
				{ subject: subjectOf.call(this), itemIndex: this.getItemIndex() },
				{
					attempts: 1,
					retryAfter: header(response.headers as FullResponse['headers'], 'retry-after'),
				},
			);
		}
		const answer = unwrapResults(response.body);
		const list = Array.isArray(answer) ? answer : [answer];
		return list.map((json) => ({
			json:
				json !== null && typeof json === 'object'
					? (json as IDataObject)
					: { value: json as string },
		}));
	};
}
