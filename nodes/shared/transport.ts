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
		try {
			// Stop (the execution's cancel signal) ends the wait at once; nothing ran yet.
			await sleep(wait, settings.abortSignal);
		} catch (error) {
			throw transportError(this, error, credentials, { ...settings, repeatable: true });
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

/*
 * Documents: the multipart upload and the download of a temporary signed link.
 */

/**
 * Uploads a document as `multipart/form-data` (named fields, not positional). Redirects are not
 * followed: a client that follows them keeps a copy of the whole body to send it again.
 */
export async function uploadRequest(
	this: IExecuteFunctions,
	form: FormData,
	settings: RequestSettings = {},
): Promise<unknown> {
	try {
		return await botDojoRequest.call(this, 'POST', ['documents', 'upload-file'], form, settings, {
			disableFollowRedirect: true,
		});
	} catch (error) {
		throw explainUploadRefusal(error);
	}
}

/** A 403 on upload has two causes a user can act on: say both in the message itself. */
function explainUploadRefusal(error: unknown): unknown {
	if (error instanceof NodeApiError && error.httpCode === '403') {
		error.message =
			'The API key may not upload documents (403): it lacks upload permission, or it is a flow key';
	}
	return error;
}

export interface DownloadedFile {
	data: Buffer;
	contentType?: string;
}

/**
 * Downloads the file behind a signed link. The signature in the link is its authorisation, so
 * the request carries no BotDojo credentials: the API key must not reach the storage host.
 * `expiresAt` (epoch ms) is the expiry that was asked for, to tell an expired link from others.
 */
export async function downloadSignedUrl(
	this: IExecuteFunctions,
	url: string,
	expiresAt: number,
	settings: RequestSettings = {},
): Promise<DownloadedFile> {
	const retry = settings.retry ?? DEFAULT_RETRY;
	const abortSignal = settings.abortSignal ?? this.getExecutionCancelSignal?.();
	let waited = 0;
	for (let attempt = 1; ; attempt++) {
		let response: FullResponse;
		try {
			response = (await this.helpers.httpRequest({
				method: 'GET',
				url,
				encoding: 'arraybuffer',
				returnFullResponse: true,
				ignoreHttpStatusErrors: true,
				timeout: settings.timeout,
				abortSignal,
			})) as FullResponse;
		} catch (error) {
			throw downloadFailure(this, error, url, settings);
		}
		if (response.statusCode < 400) {
			const body = response.body;
			return {
				data: Buffer.isBuffer(body) ? body : Buffer.from(body as ArrayBuffer),
				contentType: header(response.headers, 'content-type'),
			};
		}
		const wait = retryDelayMs(response, attempt, retry, waited);
		if (wait === undefined) throw downloadRefusal(this, response, url, expiresAt, settings);
		waited += wait;
		try {
			await sleep(wait, abortSignal);
		} catch (error) {
			throw downloadFailure(this, error, url, settings);
		}
	}
}

/** The link without its query (the signature): enough to say where, nothing to reuse. */
function linkWithoutSignature(url: string): string {
	try {
		const parsed = new URL(url);
		return `${parsed.origin}${parsed.pathname}`;
	} catch {
		return 'the download link';
	}
}

function downloadRefusal(
	ctx: IExecuteFunctions,
	response: FullResponse,
	url: string,
	expiresAt: number,
	settings: RequestSettings,
): NodeApiError {
	const raw = response.body;
	const text = Buffer.isBuffer(raw) ? raw.toString('utf8') : typeof raw === 'string' ? raw : '';
	let body: unknown = text;
	try {
		body = JSON.parse(text);
	} catch {
		// a plain-text answer is shown as it is
	}
	const said = serviceMessage(body);
	const saidLine = said ? `The storage said: "${said}". ` : '';
	const status = response.statusCode;
	const expired = Date.now() >= expiresAt || /expired/i.test(said ?? '');
	const until = new Date(expiresAt).toISOString();
	let message: string;
	let description: string;
	if (expired && (status === 400 || status === 401 || status === 403 || status === 410)) {
		message = `The download link has expired (it was valid until ${until})`;
		description = `${saidLine}Ask for a link that lasts longer (Expires) and download it before then, e.g. with the Download File option of this node.`;
	} else if (status === 403 || status === 401) {
		message = `The download link was refused (${status})`;
		description = `${saidLine}Its signature does not match: the link may have been changed. Get a new link.`;
	} else if (status === 404) {
		message = 'The file behind the download link was not found (404)';
		description = `${saidLine}The document or its version may have been deleted. Get a new link.`;
	} else {
		message = `Downloading the file failed (${status})`;
		description = saidLine;
	}
	return new NodeApiError(ctx.getNode(), { statusCode: status, body } as JsonObject, {
		message,
		description: `${description} Link: ${linkWithoutSignature(url)}. ${retryAdvice(true)}`.trim(),
		httpCode: String(status),
		itemIndex: settings.itemIndex,
	});
}

function downloadFailure(
	ctx: IExecuteFunctions,
	error: unknown,
	url: string,
	settings: RequestSettings,
): NodeApiError {
	const code = (error as { code?: string })?.code ?? '';
	const raw = (error as Error)?.message ?? String(error);
	const cancelled = code === 'ERR_CANCELED' || /aborted|canceled/i.test(raw);
	return new NodeApiError(ctx.getNode(), { message: raw, code } as JsonObject, {
		message: cancelled
			? 'The download was cancelled'
			: `Could not download the file from ${linkWithoutSignature(url)}${code ? ` (${code})` : ''}`,
		description: `${raw}. ${retryAdvice(true)}`,
		itemIndex: settings.itemIndex,
	});
}

/*
 * Running a flow (Style A body `{ body, options }`). The run is not repeatable: once BotDojo
 * accepted it, the flow may have run, so nothing after acceptance is retried.
 */

/**
 * POSTs a run; `stream` asks for the body as a readable stream (NDJSON) instead of parsed JSON.
 * `settings.abortSignal` aborts the request and its stream, also after the answer began: n8n's
 * helper replaces a request's signal by the execution's, so the helper is called on a context
 * whose execution signal is this one (link it to the execution's signal for Stop to work).
 */
export async function runFlowRequest(
	this: IExecuteFunctions,
	flowId: string,
	payload: { body: IDataObject; options: IDataObject },
	settings: RequestSettings,
	stream: boolean,
): Promise<FullResponse> {
	const signal = settings.abortSignal;
	const ctx: IExecuteFunctions = signal
		? Object.create(this, { getExecutionCancelSignal: { value: () => signal } })
		: this;
	return await sendWithRetries.call(
		ctx,
		'POST',
		['flows', flowId, 'run'],
		payload as unknown as IDataObject,
		{ ...settings, repeatable: false },
		stream ? { encoding: 'stream' } : {},
	);
}

/** What a broken run stream reports (the NDJSON reader's NdjsonStreamError has this shape). */
export interface RunStreamFailure {
	kind: string;
	message: string;
	events: number;
}

const STREAM_FAILURE_HINTS: Record<string, string> = {
	malformed: 'BotDojo sent a line that is not JSON in the middle of the stream.',
	oversize:
		'One line of the stream was larger than the Max Line Size option allows; it was refused so that it could not use up the memory of n8n. Raise the option if the flow really sends such large events.',
	incomplete: "The stream closed before BotDojo sent the flow's result.",
	idle: 'Raise the Idle Timeout option if the flow pauses this long on purpose.',
	timeout: 'Raise the Timeout option if the flow needs longer.',
	dropped: 'The connection broke: BotDojo, a proxy or the network closed it.',
	cancelled: 'The execution was stopped.',
};

/** A run stream that broke after BotDojo accepted the run. */
export function runStreamError(
	ctx: BotDojoContext,
	failure: RunStreamFailure,
	settings: RequestSettings,
): NodeApiError {
	const flow = settings.subject?.flowId;
	const hint = STREAM_FAILURE_HINTS[failure.kind] ?? '';
	const lookUp = flow
		? ` Look the run up among the flow requests of flow "${flow}" in BotDojo before running it again.`
		: '';
	return new NodeApiError(
		ctx.getNode(),
		{ message: failure.message, kind: failure.kind, eventsReceived: failure.events } as JsonObject,
		{
			message: failure.message,
			description: `${hint} The flow may have run, partly or fully.${lookUp} ${retryAdvice(false)}`,
			itemIndex: settings.itemIndex,
		},
	);
}

/** A run whose record came back with status `error` (the flow itself failed). */
export function flowReportedError(
	ctx: BotDojoContext,
	record: IDataObject,
	settings: RequestSettings,
): NodeApiError {
	const said = serviceMessage(record.response) ?? serviceMessage(record) ?? 'no details given';
	const flow = String(record.flow_id ?? settings.subject?.flowId ?? '');
	return new NodeApiError(
		ctx.getNode(),
		{
			message: said,
			flowRequestId: (record.id as string) ?? null,
			flowSessionId: (record.flow_session_id as string) ?? null,
		} as JsonObject,
		{
			message: `The flow reported an error: ${said}`,
			description: `BotDojo ran flow "${flow}" (flow request "${String(record.id ?? '')}") and it ended with status "error". To branch on this in the workflow instead, set the option On Flow Error to Output the Record. ${retryAdvice(false)}`,
			itemIndex: settings.itemIndex,
		},
	);
}

/** An answer to a run that is not a flow request record. */
export function unexpectedRunAnswer(
	ctx: BotDojoContext,
	what: string,
	settings: RequestSettings,
): NodeApiError {
	return new NodeApiError(ctx.getNode(), { message: what } as JsonObject, {
		message: `BotDojo answered the run with something that is not a flow result: ${what}`,
		description: `The flow may have run. Check the Base URL in the BotDojo API credential. ${retryAdvice(false)}`,
		itemIndex: settings.itemIndex,
	});
}
