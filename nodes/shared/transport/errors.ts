/**
 * Failures as a non-programmer can act on them: one NodeApiError mapping for every node (the
 * API key is redacted where they leave the node: redaction.ts `withoutKey`). Whether retrying
 * is safe is said only for running a flow, the one request where a retry could repeat something.
 */
import { NodeApiError, NodeOperationError, type IDataObject, type JsonObject } from 'n8n-workflow';

import { shapeOf } from './api';
import { STREAM_LINES } from './ndjson';
import {
	knownApiKey,
	REQUEST_IDS,
	type BotDojoContext,
	type Endpoint,
	type ProjectCredentials,
	type RequestSettings,
} from './project';
import { quoteAnswer } from './redaction';

/** Why a body could not be read to its end (a bound, a deadline, Stop, a broken or bad stream);
 *  `events`: the stream's events that had arrived. */
export type ReadFailureKind =
	| 'malformed'
	| 'oversize'
	| 'overlong'
	| 'incomplete'
	| 'idle'
	| 'timeout'
	| 'dropped'
	| 'cancelled';

export class ReadFailure extends Error {
	constructor(
		readonly kind: ReadFailureKind,
		message: string,
		readonly events = 0,
	) {
		super(message);
		this.name = 'ReadFailure';
	}
}

/** A failure's own message, whatever was thrown. */
export const errorText = (error: unknown) => (error as Error)?.message ?? String(error);

/** The connection failed while an answer was being read: `cause` says how. */
export class AnswerBrokeOffError extends Error {
	constructor(readonly cause: unknown) {
		super(errorText(cause));
	}
}

/** Whether a failure is a Stop (n8n's helper says ERR_CANCELED, axios "aborted"/"canceled"). */
export function isCancel(error: unknown) {
	if (error instanceof ReadFailure) return error.kind === 'cancelled';
	return failureCode(error) === 'ERR_CANCELED' || /aborted|cancel/i.test(errorText(error));
}

/** A failure worded by the transport: a NodeApiError when it quotes an answer (`cause`), else a
 *  NodeOperationError (a check before anything was sent or stored). */
export function nodeError(
	ctx: BotDojoContext,
	message: string,
	{ description, itemIndex, cause }: { description: string; itemIndex?: number; cause?: object },
) {
	if (cause)
		return new NodeApiError(ctx.getNode(), cause as JsonObject, {
			message,
			description,
			itemIndex,
		});
	return new NodeOperationError(ctx.getNode(), message, { description, itemIndex });
}

/** The error for an answer that is not what `endpoint` returns (`expected`: "an array"…). */
export function wrongAnswerError(
	ctx: BotDojoContext,
	answer: unknown,
	endpoint: Endpoint,
	expected: string,
	found: unknown,
	itemIndex?: number,
) {
	let text: string;
	try {
		text = JSON.stringify(answer ?? null) ?? String(answer);
	} catch {
		text = `(${shapeOf(answer)} nested too deeply to show)`;
	}
	const sample = quoteAnswer(text, knownApiKey(ctx), 200);
	return nodeError(
		ctx,
		`BotDojo's answer to ${endpoint.join('/')} is not what that endpoint returns: expected ${expected}, got ${shapeOf(found)}`,
		{
			description: `The answer began: ${sample}. Check that the Base URL in the BotDojo API credential points at the BotDojo API (ending in /api/v1).`,
			itemIndex,
			cause: { answer: sample },
		},
	);
}

const MESSAGE_KEYS = ['error', 'message', 'detail', 'error_description'];

/** The service's own words about a failure, from any error shape seen in the wild, whole (quote
 *  them with saidByService). At most 8 levels deep, so any answer gives a message. */
export function serviceMessage(body: unknown, depth = 0): string | undefined {
	if (typeof body === 'string') return body.trim() || undefined;
	if (body === null || typeof body !== 'object' || depth >= 8) return undefined;
	for (const key of MESSAGE_KEYS) {
		const said = serviceMessage((body as Record<string, unknown>)[key], depth + 1);
		if (said !== undefined) return said;
	}
	return undefined;
}

/** The service's words about a failure: the key redacted, then cut to 500 characters. */
export function saidByService(body: unknown, apiKey: string) {
	const whole = serviceMessage(body);
	return whole === undefined ? undefined : quoteAnswer(whole, apiKey, 500);
}

const SAFE_TO_RETRY = 'Safe to retry: BotDojo did not run anything.';
const NOT_SAFE_TO_RETRY =
	'Not safe to retry blindly: the flow may have run already, and running it again repeats what it does (e.g. sends an e-mail twice).';

/** The ids a request used: how a message names each, and where the user sets it. */
function idsUsed(credentials: ProjectCredentials, settings: RequestSettings) {
	const s: Record<string, string | undefined> = settings.subject ?? {};
	// A subject held in a variable may carry a kind without a row (TypeScript checks extra keys
	// only of object literals): such an id still names itself, as its key says ("requestId").
	const rows: Record<string, { name: string; field: string }> = { ...REQUEST_IDS };
	for (const key of Object.keys(s)) rows[key] ??= { name: key, field: key };
	return [
		{
			name: 'account',
			id: credentials.accountId,
			where: 'the Account ID of the BotDojo API credential',
		},
		{
			name: 'project',
			id: credentials.projectId,
			where: 'the Project ID of the BotDojo API credential',
		},
		...Object.entries(rows).map(([key, { name, field }]) => ({
			name,
			id: s[key],
			where: `the ${field} in the node`,
		})),
	];
}

/** The id BotDojo said it did not find: the one its message names first (not inside a path). */
function missingId(said: string, ids: ReturnType<typeof idsUsed>) {
	let first: { id: string; where: string; at: number } | undefined;
	// The node's ids before the credential's when two start at the same place.
	for (const { id, where } of [...ids.slice(2), ...ids.slice(0, 2)]) {
		if (!id) continue;
		let at = said.indexOf(id);
		while (at > 0 && said[at - 1] === '/') at = said.indexOf(id, at + 1);
		if (at >= 0 && (!first || at < first.at)) first = { id, where, at };
	}
	return first;
}

const TOO_LARGE: Record<number, string> = {
	413: 'the body is too large',
	414: 'the address is too long',
	431: 'the request line or headers are too long',
};

/** An HTTP failure as a NodeApiError a non-programmer can act on. */
export function apiError(
	ctx: BotDojoContext,
	statusCode: number,
	body: unknown,
	credentials: ProjectCredentials,
	settings: RequestSettings,
	/** `url`: the URL called; `location`: where a 3xx pointed. */
	facts: { attempts: number; retryAfter?: string; url?: string; location?: string },
) {
	const said = saidByService(body, credentials.apiKey);
	const saidLine = said ? `BotDojo said: "${said}". ` : '';
	const ids = idsUsed(credentials, settings);
	const used = ids
		.filter((entry, at) => at < 2 || entry.id !== undefined)
		.map(({ name, id }) => `${name} "${id}"`)
		.join(', ');
	const repeatable = settings.repeatable !== false;
	let message = `BotDojo answered with status ${statusCode}`;
	let description = saidLine;
	let safeToRetry = true;

	if (statusCode >= 300 && statusCode < 400) {
		const { origin, baseUrl } = redirectTarget(facts.location, facts.url);
		message = `BotDojo's address answered with a redirect (${statusCode}) to ${origin}, which was not followed`;
		description = `Nothing was sent to ${origin}: the API key goes only to the Base URL of the BotDojo API credential. If ${origin} is BotDojo, set the Base URL there (${baseUrl}).`;
	} else if (statusCode === 400) {
		message = `BotDojo refused the request as invalid${said ? `: ${said}` : ''}`;
		description = `Check the node's parameters. Ids used: ${used}.`;
	} else if (TOO_LARGE[statusCode]) {
		message = `The request was too large for BotDojo or a proxy before it (${statusCode}: ${TOO_LARGE[statusCode]})`;
		description = `${saidLine}Nothing ran. Shorten what the node sends (ids, the message, the file). Ids used: ${used}.`;
	} else if (statusCode === 401) {
		message = 'BotDojo rejected the API key (401)';
		description = `${saidLine}Open the BotDojo API credential and paste the key again, exactly as BotDojo showed it and without "Bearer". Keys are created under Project Settings → API Keys.`;
	} else if (statusCode === 403) {
		message = 'The API key is not allowed to do this (403)';
		description = `${saidLine}A flow key can only run the one flow it was made for; every other flow, and documents, sessions, exports and indexes, need a project key. Uploading also needs a key with upload permission. Ids used: ${used}.`;
	} else if (statusCode === 404) {
		// BotDojo's words say best what is missing: name the id they name, else every id used.
		const missing = said ? missingId(said, ids) : undefined;
		message = `BotDojo could not find ${said ? `it: ${said}` : 'what was asked for'}`;
		description = missing
			? `Check ${missing.where} ("${missing.id}").`
			: `One of these does not exist or is not visible to this key: ${used}. Check the ids in the node and in the credential.`;
		// The docs show other paths for documents and indexes than the spec.
		if (facts.url && URL.canParse(facts.url) && /\/(documents|indexes)\//.test(facts.url))
			description += ` Path called: POST ${new URL(facts.url).pathname}. If the ids are right, report this path: BotDojo may have moved the endpoint.`;
	} else if (statusCode === 429) {
		message = 'BotDojo is limiting the request rate (429)';
		description = `${saidLine}Gave up after ${facts.attempts} attempt(s)${facts.retryAfter ? `; BotDojo asked to wait ${facts.retryAfter} s` : ''}. ${settings.rateLimitAdvice ?? 'Send fewer requests at once'}, or run the workflow later.`;
	} else if (statusCode === 503) {
		message = 'BotDojo is temporarily unavailable (503)';
		description = `${saidLine}Gave up after ${facts.attempts} attempt(s). Try again in a few minutes.`;
	} else if (statusCode >= 500) {
		message = `BotDojo could not handle the request (${statusCode})`;
		description = `${saidLine}${repeatable ? 'Try again later.' : 'The flow may already have run, so it was not retried automatically.'}`;
		safeToRetry = repeatable;
	} else safeToRetry = repeatable;

	if (!repeatable) description += ` ${safeToRetry ? SAFE_TO_RETRY : NOT_SAFE_TO_RETRY}`;
	const error = new NodeApiError(ctx.getNode(), { statusCode, body: body ?? null } as JsonObject, {
		message,
		description: description.trim(),
		httpCode: String(statusCode),
		itemIndex: settings.itemIndex,
	});
	// BotDojo refused the session while loading the request, before any flow ran: in its own
	// words (not what a flow's error quotes), on a failed request (400 or more; a redirect's
	// body is no refusal). The caller may run again in a new session.
	const sessionId = statusCode >= 400 && settings.subject?.sessionId;
	if (sessionId && /^error loading session\b/i.test(serviceMessage(body) ?? ''))
		error.context.sessionRefused = true;
	return error;
}

/** Where a redirect pointed: its origin, and the Base URL it implies (up to `/accounts/`). */
function redirectTarget(location = '', from?: string) {
	if (!URL.canParse(location, from)) {
		return { origin: 'an address it did not give', baseUrl: 'e.g. https://api.botdojo.com/api/v1' };
	}
	const target = new URL(location, from);
	const path = target.pathname.split('/accounts/')[0].replace(/\/+$/, '');
	return { origin: target.origin, baseUrl: `${target.origin}${path}` };
}

/** n8n's helper wraps network errors: the system code is on the error, its cause, or httpCode. */
function failureCode(error: unknown) {
	const wrapped = error as { code?: unknown; httpCode?: unknown; cause?: { code?: unknown } };
	for (const candidate of [wrapped?.code, wrapped?.cause?.code, wrapped?.httpCode]) {
		if (typeof candidate === 'string' && /^E[A-Z_]+$/.test(candidate)) return candidate;
	}
	return '';
}

const TOO_LARGE_ADVICE =
	'Ask BotDojo for less at a time: a smaller Page Size or Limit, a narrower query or date range.';

/** A failure with no whole HTTP answer: refused connection, DNS, timeout, Stop, cut answer.
 *  `waiting`: it came during a Retry-After wait, when nothing was sent. */
export function transportError(
	ctx: BotDojoContext,
	error: unknown,
	credentials: ProjectCredentials,
	settings: RequestSettings,
	waiting = false,
) {
	const brokeOff = error instanceof AnswerBrokeOffError;
	const code = failureCode(brokeOff ? error.cause : error);
	const raw = errorText(error);
	let safeToRetry = waiting || settings.repeatable !== false;
	const bound = error instanceof ReadFailure && !isCancel(error) ? error : undefined;
	let message = `The connection to BotDojo was lost: ${raw}`;
	if (bound) message = bound.message;
	else if (code === 'ECONNABORTED' || code === 'ETIMEDOUT' || /timeout|timed out/i.test(raw)) {
		const ms = settings.timeout ?? 0;
		message = `BotDojo did not answer within the timeout${ms > 0 ? ` of ${ms} ms` : ''}`;
	} else if (brokeOff || (code === 'ERR_BAD_RESPONSE' && /aborted/i.test(raw))) {
		// Read by the transport, or axios' "stream has been aborted" (a Stop is ERR_CANCELED).
		message = 'The connection to BotDojo broke before its whole answer had arrived';
	} else if (isCancel(error)) {
		// n8n marks a stopped execution as canceled only with this spelling.
		message = 'The request to BotDojo was canceled';
	} else if (['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN'].includes(code)) {
		message = `Could not reach BotDojo at ${credentials.baseUrl}: ${code === 'ECONNREFUSED' ? 'the connection was refused' : 'the host name was not found'}`;
		safeToRetry = true; // nothing was sent
	}
	// Messages name no system code: n8n would replace such a message with its own.
	const advice =
		settings.repeatable === false ? ` ${safeToRetry ? SAFE_TO_RETRY : NOT_SAFE_TO_RETRY}` : '';
	return nodeError(ctx, message, {
		description: `${bound?.kind === 'oversize' ? TOO_LARGE_ADVICE : `Check the Base URL in the BotDojo API credential and your network${code ? ` (error code ${code})` : ''}.`}${advice}`,
		itemIndex: settings.itemIndex,
		cause: { message: raw, systemCode: code },
	});
}

/** The node's words for a run's failures: the names of the options that change them. */
export interface RunWords {
	timeout: string;
	idleTimeout: string;
	maxLine: string;
	onFlowError: string;
	/** What the user can change when BotDojo keeps limiting the rate of runs (429). */
	rateLimit: string;
}

/** Which run failed, and the node's words for it. */
interface RunPlace {
	flowId: string;
	itemIndex: number;
	words: RunWords;
}

/** A run that broke after BotDojo accepted it: its stream, its deadline, a Stop. Never "safe
 *  to retry": once accepted, the flow may have run. */
export function runFailure(ctx: BotDojoContext, failure: ReadFailure, run: RunPlace) {
	// A malformed line is quoted in the message: the runner redacts the key from it.
	const { message, kind, events } = failure;
	const memory = 'it was refused so that it could not use up the memory of n8n';
	// What to do about each way a run breaks after BotDojo accepted it.
	const hints: Record<ReadFailureKind, string> = {
		malformed: 'BotDojo sent a line that is not JSON in the middle of the stream.',
		oversize: `One line of the stream was larger than the option ${run.words.maxLine} allows; ${memory}. Raise the option if the flow really sends such large events.`,
		overlong: `The whole stream was larger than ${STREAM_LINES} times the option ${run.words.maxLine} allows; ${memory}. Raise the option if the flow really sends this much.`,
		incomplete: "The stream closed before BotDojo sent the flow's result.",
		idle: `Raise the ${run.words.idleTimeout} option if the flow pauses this long on purpose.`,
		timeout: `Raise the ${run.words.timeout} option if the flow needs longer.`,
		dropped: 'The connection broke: BotDojo, a proxy or the network closed it.',
		cancelled: 'The execution was stopped.',
	};
	return nodeError(ctx, message, {
		description: `${hints[kind]} The flow may have run, partly or fully. Look the run up among the flow requests of flow "${run.flowId}" in BotDojo before running it again. ${NOT_SAFE_TO_RETRY}`,
		itemIndex: run.itemIndex,
		cause: { message, kind, eventsReceived: events },
	});
}

/** The failure a run's record reports: still `pending` or `running` (no answer yet, and an empty
 *  one must not pass for it), or `error` (when the node fails on it). */
export function runRecordFailure(ctx: BotDojoContext, record: IDataObject, run: RunPlace) {
	const status = String(record.status);
	const request = String(record.id ?? '');
	const ids = { flowRequestId: record.id ?? null };
	const { itemIndex } = run;
	if (status === 'pending' || status === 'running')
		return nodeError(ctx, `The flow had not finished when BotDojo answered (status "${status}")`, {
			description: `BotDojo answered the run of flow "${run.flowId}" with flow request "${request}" still "${status}", so there is no answer yet. Look that flow request up in BotDojo (or with Export Requests) once it finished, rather than running the flow again. ${NOT_SAFE_TO_RETRY}`,
			itemIndex,
			cause: { message: `status "${status}"`, ...ids },
		});
	const key = knownApiKey(ctx);
	const said =
		saidByService(record.response, key) ?? saidByService(record, key) ?? 'no details given';
	const flow = String(record.flow_id ?? run.flowId);
	return nodeError(ctx, `The flow reported an error: ${said}`, {
		description: `BotDojo ran flow "${flow}" (flow request "${request}") and it ended with status "error". To branch on this in the workflow instead, set the option ${run.words.onFlowError} to Output the Record. ${NOT_SAFE_TO_RETRY}`,
		itemIndex,
		cause: { message: said, ...ids, flowSessionId: record.flow_session_id ?? null },
	});
}

/** An answer to a run that is not a flow request record: `whatItIs`, then the start of the
 *  answer's text (`sample`, redacted before it is cut). */
export function unexpectedRunAnswer(
	ctx: BotDojoContext,
	whatItIs: string,
	run: RunPlace,
	sample?: string,
) {
	const what =
		sample === undefined ? whatItIs : `${whatItIs}${quoteAnswer(sample, knownApiKey(ctx), 200)}`;
	return nodeError(
		ctx,
		`BotDojo's answer to flows/${run.flowId}/run is not what that endpoint returns: expected a flow request record (an object), got ${what}`,
		{
			description: `The flow may have run. Check the Base URL in the BotDojo API credential. ${NOT_SAFE_TO_RETRY}`,
			itemIndex: run.itemIndex,
			cause: { message: what },
		},
	);
}
