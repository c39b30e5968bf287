/**
 * What an endpoint answers, checked: `{ results }` is unwrapped whatever sits beside it, and an
 * answer of another shape than the endpoint's is an error naming the endpoint and the shape,
 * never passed on as data.
 */
import { NodeApiError, type JsonObject } from 'n8n-workflow';

import { quoteAnswer } from './redaction';
import { knownApiKey } from './project';
import { positionalRequest, unwrapResults } from './request';
import type { BotDojoContext, Endpoint, RequestSettings } from './types';

export type AnswerShape = 'object' | 'array' | 'string';

/** The shape of an answer in words, for errors: "an array", "a string", "null". */
export function shapeOf(value: unknown): string {
	if (value === null) return 'null';
	if (value === undefined) return 'nothing';
	if (Array.isArray(value)) return 'an array';
	if (typeof value === 'object') return 'an object';
	return `a ${typeof value}`;
}

const ARTICLE: Record<AnswerShape, string> = {
	object: 'an object',
	array: 'an array',
	string: 'a string',
};

/** The answer as JSON text, to quote it; an answer nested too deeply to write out says so. */
function answerText(answer: unknown): string {
	try {
		return JSON.stringify(answer ?? null) ?? String(answer);
	} catch {
		return `(${shapeOf(answer)} nested too deeply to show)`;
	}
}

/**
 * The error for an answer that is not what `endpoint` returns. `expected` says what it should
 * have been, e.g. "an array".
 */
export function wrongAnswerError(
	ctx: BotDojoContext,
	answer: unknown,
	endpoint: Endpoint,
	expected: string,
	found: unknown,
	itemIndex?: number,
): NodeApiError {
	const sample = quoteAnswer(answerText(answer), knownApiKey(ctx), 200);
	return new NodeApiError(ctx.getNode(), { answer: sample } as JsonObject, {
		message: `BotDojo's answer to ${endpoint.join('/')} is not what that endpoint returns: expected ${expected}, got ${shapeOf(found)}`,
		description: `The answer began: ${sample}. Check that the Base URL in the BotDojo API credential points at the BotDojo API (ending in /api/v1).`,
		itemIndex,
	});
}

/** The endpoint's result, unwrapped and of the expected shape. */
export function resultsOf<T>(
	ctx: BotDojoContext,
	answer: unknown,
	endpoint: Endpoint,
	shape: AnswerShape,
	itemIndex?: number,
): T {
	const result = unwrapResults<unknown>(answer);
	if (shapeOf(result) === ARTICLE[shape]) return result as T;
	throw wrongAnswerError(ctx, answer, endpoint, ARTICLE[shape], result, itemIndex);
}

/** Calls a positional endpoint and returns its result, unwrapped and of the endpoint's shape. */
export async function positionalResults<T>(
	ctx: BotDojoContext,
	endpoint: Endpoint,
	params: readonly unknown[],
	shape: AnswerShape,
	settings: RequestSettings = {},
): Promise<T> {
	const answer = await positionalRequest(ctx, endpoint, params, settings);
	return resultsOf<T>(ctx, answer, endpoint, shape, settings.itemIndex);
}
