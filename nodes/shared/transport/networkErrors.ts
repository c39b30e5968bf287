/**
 * Failures with no (whole) HTTP answer, as a non-programmer can act on them: refused connection,
 * DNS, timeout, Stop, an answer cut off or past a bound. HTTP statuses are worded in errors.ts.
 */
import { NodeApiError, type JsonObject } from 'n8n-workflow';

import { retryAdvice } from './errors';
import { redact } from './redaction';
import type { BotDojoContext, ProjectCredentials, RequestSettings } from './project';

/** A bound of ANSWER_LIMITS (request.ts) that an answer reached: its message names the bound. */
export class AnswerBoundReached extends Error {}

/** The connection failed while an answer was being read (the answer had begun): `cause` says how. */
export class AnswerBrokeOffError extends Error {
	constructor(readonly cause: unknown) {
		super((cause as Error)?.message ?? String(cause));
	}
}

/** A failure with no (whole) HTTP answer: refused connection, DNS, timeout, abort, dropped socket. */
export function transportError(
	ctx: BotDojoContext,
	error: unknown,
	credentials: ProjectCredentials,
	settings: RequestSettings,
	/** The failure came during a Retry-After wait: nothing was sent that time. */
	waiting = false,
): NodeApiError {
	const brokeOff = error instanceof AnswerBrokeOffError;
	const code = failureCode(brokeOff ? error.cause : error);
	const raw = redact((error as Error)?.message ?? String(error), credentials.apiKey);
	const repeatable = waiting || settings.repeatable !== false;
	const unreachable = unreachableReason(code);
	let message: string;
	let safeToRetry = repeatable;
	if (error instanceof AnswerBoundReached) {
		message = error.message;
	} else if (code === 'ECONNABORTED' || code === 'ETIMEDOUT' || /timeout|timed out/i.test(raw)) {
		message = `BotDojo did not answer within the timeout${(settings.timeout ?? 0) > 0 ? ` of ${settings.timeout} ms` : ''}`;
	} else if (brokeOff || (code === 'ERR_BAD_RESPONSE' && /aborted/i.test(raw))) {
		// Mid-answer: read by the transport, or axios' "stream has been aborted" (a Stop is ERR_CANCELED)
		message = 'The connection to BotDojo broke before its whole answer had arrived';
	} else if (code === 'ERR_CANCELED' || /aborted|cancel/i.test(raw)) {
		// "canceled": n8n marks a stopped execution as canceled only with this spelling.
		message = 'The request to BotDojo was canceled';
	} else if (unreachable) {
		message = `Could not reach BotDojo at ${credentials.baseUrl}: ${unreachable}`;
		safeToRetry = true; // nothing was sent
	} else {
		message = `The connection to BotDojo was lost: ${raw}`;
	}
	// Messages name no system code: n8n would replace a message that contains one with its own.
	return new NodeApiError(ctx.getNode(), { message: raw, systemCode: code } as JsonObject, {
		message,
		description: `Check the Base URL in the BotDojo API credential and your network${code ? ` (error code ${code})` : ''}.${settings.repeatable === false ? ` ${retryAdvice(safeToRetry)}` : ''}`,
		itemIndex: settings.itemIndex,
	});
}

/** Why the host could not be reached before anything was sent, or undefined for other failures. */
export function unreachableReason(code: string): string | undefined {
	if (code === 'ECONNREFUSED') return 'the connection was refused';
	if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'the host name was not found';
	return undefined;
}

/** n8n's helper wraps network errors: the system code is on the error, its cause, or httpCode. */
export function failureCode(error: unknown): string {
	const wrapped = error as { code?: unknown; httpCode?: unknown; cause?: { code?: unknown } };
	for (const candidate of [wrapped?.code, wrapped?.cause?.code, wrapped?.httpCode]) {
		if (typeof candidate === 'string' && /^E[A-Z_]+$/.test(candidate)) return candidate;
	}
	return '';
}
