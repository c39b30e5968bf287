/**
 * Failures as a non-programmer can act on them: one NodeApiError mapping for every node, never
 * showing the API key. Whether retrying is safe is said only for running a flow, the one
 * request where a retry could repeat something. Failures with no HTTP status: networkErrors.ts.
 */
import { NodeApiError, type JsonObject } from 'n8n-workflow';

import { quoteAnswer, redact, redactDeep } from './redaction';
import type {
	BotDojoContext,
	ProjectCredentials,
	RequestSettings,
	RequestSubject,
} from './project';

/** The longest quote of the service's own words in a message. */
const SAID_CHARS = 500;

/**
 * The service's own words about a failure, from any of the error shapes seen in the wild, whole:
 * quote them with quoteAnswer, which redacts the key before it shortens them.
 */
export function serviceMessage(body: unknown): string | undefined {
	// A stack, not recursion, and at most MESSAGE_DEPTH levels: any answer gives a message.
	const stack = [{ value: body, depth: 0 }];
	while (stack.length > 0) {
		const { value, depth } = stack.pop()!;
		if (typeof value === 'string') {
			if (value.trim()) return value.trim();
			continue;
		}
		if (value === null || typeof value !== 'object' || depth >= MESSAGE_DEPTH) continue;
		// Reversed, so that the first key is looked at first.
		for (const key of [...MESSAGE_KEYS].reverse()) {
			const inner = (value as Record<string, unknown>)[key];
			if (typeof inner === 'string' || (inner && typeof inner === 'object')) {
				stack.push({ value: inner, depth: depth + 1 });
			}
		}
	}
	return undefined;
}

const MESSAGE_KEYS = ['error', 'message', 'detail', 'error_description'];

/** How deep serviceMessage looks for words: `{ "error": { "message": … } }` is 2. */
const MESSAGE_DEPTH = 8;

/** The service's words about a failure, quoted: the key redacted, then cut to SAID_CHARS. */
export function saidByService(body: unknown, apiKey: string): string | undefined {
	const whole = serviceMessage(body);
	return whole === undefined ? undefined : quoteAnswer(whole, apiKey, SAID_CHARS);
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
	/** The URL called: a 404 says its path, so that a moved endpoint can be reported. */
	url?: string;
	/** Where a 3xx pointed. */
	location?: string;
}

/** The ids a request used, each with where the user sets it. */
function idsUsed(
	credentials: ProjectCredentials,
	subject: RequestSubject = {},
): Array<{ id: string; where: string }> {
	const node = 'in the node';
	const ids = [
		{ id: subject.flowId, where: `the Flow ID ${node}` },
		{ id: subject.sessionId, where: `the Session ID ${node}` },
		{ id: subject.indexId, where: `the Index ID ${node}` },
		{ id: subject.documentId, where: `the document ${node}` },
		{ id: subject.logicalPath, where: `the Logical Path ${node}` },
		{
			id: credentials.accountId,
			where: 'the Account ID of the BotDojo API credential',
		},
		{
			id: credentials.projectId,
			where: 'the Project ID of the BotDojo API credential',
		},
	];
	return ids.filter((entry): entry is { id: string; where: string } => !!entry.id);
}

/** The id BotDojo said it did not find: the one its message names first. */
function missingId(
	said: string | undefined,
	credentials: ProjectCredentials,
	subject?: RequestSubject,
) {
	if (!said) return undefined;
	let first: { id: string; where: string; at: number } | undefined;
	for (const entry of idsUsed(credentials, subject)) {
		// An id inside a path ("/accounts/acc_1/…") is where the request went, not what is missing.
		let at = said.indexOf(entry.id);
		while (at > 0 && said[at - 1] === '/') at = said.indexOf(entry.id, at + 1);
		if (at >= 0 && (!first || at < first.at)) first = { ...entry, at };
	}
	return first;
}

/** Documents and indexes: the docs show other paths than the spec, so a 404 says the path. */
function pathNote(url: string | undefined): string {
	if (!url || !/\/(documents|indexes)\//.test(url)) return '';
	let path = url;
	try {
		path = new URL(url).pathname;
	} catch {
		// not a URL: shown as it is
	}
	return ` Path called: POST ${path}. If the ids are right, report this path: BotDojo may have moved the endpoint.`;
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
	const said = saidByService(body, credentials.apiKey);
	const saidLine = said ? `BotDojo said: "${said}". ` : '';
	const used = describeSubject(credentials, settings.subject);
	const repeatable = settings.repeatable !== false;
	let message: string;
	let description: string;
	let safeToRetry: boolean;

	switch (true) {
		case statusCode >= 300 && statusCode < 400: {
			const target = redirectTarget(facts.location, facts.url);
			message = `BotDojo's address answered with a redirect (${statusCode}) to ${target.origin}, which was not followed`;
			description = `Nothing was sent to ${target.origin}: the API key goes only to the Base URL of the BotDojo API credential. If ${target.origin} is BotDojo, set the Base URL there (${target.baseUrl}).`;
			safeToRetry = true;
			break;
		}
		case statusCode === 400:
			message = `BotDojo refused the request as invalid${said ? `: ${said}` : ''}`;
			description = `Check the node's parameters. Ids used: ${used}.`;
			safeToRetry = true;
			break;
		case statusCode === 413 || statusCode === 414 || statusCode === 431:
			// Too large for BotDojo or a proxy before it: refused before it reached any flow.
			message = `The request was too large for BotDojo or a proxy before it (${statusCode}: ${TOO_LARGE[statusCode]})`;
			description = `${saidLine}Nothing ran. Shorten what the node sends (ids, the message, the file). Ids used: ${used}.`;
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
		case statusCode === 404: {
			// BotDojo's own words say best what is missing; the ids named are only the one it
			// said, when it said one, else every id the request used.
			const missing = missingId(said, credentials, settings.subject);
			message = `BotDojo could not find ${said ? `it: ${said}` : 'what was asked for'}`;
			description = missing
				? `Check ${missing.where} ("${missing.id}").`
				: `One of these does not exist or is not visible to this key: ${used}. Check the ids in the node and in the credential.`;
			description += pathNote(facts.url);
			safeToRetry = true;
			break;
		}
		case statusCode === 429:
			message = 'BotDojo is limiting the request rate (429)';
			description = `${saidLine}Gave up after ${facts.attempts} attempt(s)${facts.retryAfter ? `; BotDojo asked to wait ${facts.retryAfter} s` : ''}. ${settings.rateLimitAdvice ?? 'Send fewer requests at once'}, or run the workflow later.`;
			safeToRetry = true;
			break;
		case statusCode === 503:
			message = 'BotDojo is temporarily unavailable (503)';
			description = `${saidLine}Gave up after ${facts.attempts} attempt(s). Try again in a few minutes.`;
			safeToRetry = true;
			break;
		case statusCode >= 500:
			message = `BotDojo could not handle the request (${statusCode})`;
			description = `${saidLine}${repeatable ? 'Try again later.' : 'The flow may already have run, so it was not retried automatically.'}`;
			safeToRetry = repeatable;
			break;
		default:
			message = `BotDojo answered with status ${statusCode}`;
			description = saidLine;
			safeToRetry = repeatable;
	}

	if (settings.repeatable === false) description += ` ${retryAdvice(safeToRetry)}`;
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

/** Where a redirect pointed: its origin, and the Base URL it implies (up to `/accounts/`). */
function redirectTarget(location: string | undefined, from: string | undefined) {
	try {
		const target = new URL(location ?? '', from);
		const path = target.pathname.split('/accounts/')[0].replace(/\/+$/, '');
		return { origin: target.origin, baseUrl: `${target.origin}${path}` };
	} catch {
		return { origin: 'an address it did not give', baseUrl: 'e.g. https://api.botdojo.com/api/v1' };
	}
}

const TOO_LARGE: Record<number, string> = {
	413: 'the body is too large',
	414: 'the address is too long',
	431: 'the request line or headers are too long',
};

export function retryAdvice(safeToRetry: boolean): string {
	return safeToRetry
		? 'Safe to retry: BotDojo did not run anything.'
		: 'Not safe to retry blindly: the flow may have run already, and running it again repeats what it does (e.g. sends an e-mail twice).';
}

function redactBody(body: unknown, apiKey: string): unknown {
	return body === undefined ? null : redactDeep(body, apiKey);
}
