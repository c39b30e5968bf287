/**
 * What an endpoint answers, checked: `{ results }` is unwrapped whatever sits beside it, and an
 * answer of another shape than the endpoint's is an error naming the endpoint and the shape,
 * never passed on as data.
 */
import { NodeApiError, type JsonObject } from 'n8n-workflow';

import type { BotDojoContext, Endpoint } from './types';
import { unwrapResults } from './request';

export type AnswerShape = 'object' | 'array' | 'string';

function shapeOf(value: unknown): string {
	if (value === null) return 'null';
	if (Array.isArray(value)) return 'array';
	return typeof value;
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
	const found = shapeOf(result);
	if (found === shape) return result as T;
	const sample = JSON.stringify(answer ?? null)?.slice(0, 200) ?? String(answer);
	throw new NodeApiError(ctx.getNode(), { answer: sample } as JsonObject, {
		message: `BotDojo's answer to ${endpoint.join('/')} is not what that endpoint returns: expected ${shape === 'array' ? 'an array' : `an ${shape}`.replace('an string', 'a string')}, got ${found === 'array' || found === 'object' ? `an ${found}` : found}`,
		description: `The answer began: ${sample}. Check that the Base URL in the BotDojo API credential points at the BotDojo API (ending in /api/v1).`,
		itemIndex,
	});
}
