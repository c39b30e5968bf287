/**
 * What an endpoint answers, checked: `{ results }` is unwrapped whatever sits beside it, and an
 * answer of another shape than the endpoint's is an error naming the endpoint and the shape,
 * never passed on as data.
 */
import { NodeApiError, type IDataObject, type JsonObject } from 'n8n-workflow';

import { quoteAnswer } from './redaction';
import { knownApiKey, type BotDojoContext, type Endpoint, type RequestSettings } from './project';
import { positionalRequest, unwrapResults } from './request';

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

// The records of the spec (service-interface.md, "Resources and their fields"): the fields the
// nodes read, typed; a field may be absent or null; fields not listed are kept as sent.

/** A flow request record: the answer of a run, a row of an export. */
export interface FlowRequestRecord extends IDataObject {
	id?: string | number | null;
	flow_id?: string | null;
	flow_session_id?: string | null;
	status?: string | null;
	duration?: number | null;
	version?: string | null;
	body?: IDataObject | null;
	response?: IDataObject | null;
	userMessage?: IDataObject | null;
	aiMessage?: IDataObject | null;
	startTime?: string | null;
	endTime?: string | null;
	created?: string | null;
	modified?: string | null;
}

/** A flow session record (session creation's answer). */
export interface FlowSession extends IDataObject {
	id?: string | null;
	flow_id?: string | null;
	sessionState?: IDataObject | null;
	created?: string | null;
	modified?: string | null;
}

/** A document record (upload, lookup by logical path). */
export interface DocumentRecord extends IDataObject {
	id?: string | null;
	fileName?: string | null;
	contentType?: string | null;
	sizeBytes?: number | null;
	logicalPath?: string | null;
	version?: string | null;
	created?: string | null;
}

/** An index's status: its fields are not in the spec, so every field is kept as sent. */
export type IndexStatus = IDataObject;

// 'id': a string as the spec says, or a number, which bad data or an import may hold; refusing
// the page would stop an export or the Trigger for good (the Trigger keeps both apart).
type FieldType = 'string' | 'number' | 'object' | 'id';

/** The type of each listed field of a record, as the spec gives it. */
export const RECORD_FIELDS: Record<
	'flowRequest' | 'session' | 'document',
	Record<string, FieldType>
> = {
	flowRequest: {
		id: 'id',
		flow_id: 'string',
		flow_session_id: 'string',
		status: 'string',
		duration: 'number',
		version: 'string',
		body: 'object',
		response: 'object',
		userMessage: 'object',
		aiMessage: 'object',
		startTime: 'string',
		endTime: 'string',
		created: 'string',
		modified: 'string',
	},
	session: {
		id: 'string',
		flow_id: 'string',
		sessionState: 'object',
		created: 'string',
		modified: 'string',
	},
	document: {
		id: 'string',
		fileName: 'string',
		contentType: 'string',
		sizeBytes: 'number',
		logicalPath: 'string',
		version: 'string',
		created: 'string',
	},
};

function hasType(value: unknown, type: FieldType): boolean {
	if (type === 'object') return shapeOf(value) === 'an object';
	if (type === 'id') return typeof value === 'string' || typeof value === 'number';
	return typeof value === type;
}

/** The first listed field of `record` whose value is not of its type. */
function wrongField(record: IDataObject, fields: Record<string, FieldType>) {
	for (const [name, type] of Object.entries(fields)) {
		const value = record[name];
		if (value === undefined || value === null) continue;
		if (hasType(value, type)) continue;
		const expected = { object: 'an object', id: 'a string or a number' }[type as string];
		return { name, value, expected: expected ?? `a ${type}` };
	}
	return undefined;
}

/** Checks each record against the spec's field types; a wrong one names the field. */
export function checkRecords(
	ctx: BotDojoContext,
	answer: unknown,
	records: readonly IDataObject[],
	kind: keyof typeof RECORD_FIELDS,
	endpoint: Endpoint,
	itemIndex?: number,
): void {
	for (const record of records) {
		const wrong = wrongField(record, RECORD_FIELDS[kind]);
		if (!wrong) continue;
		const expected = `records whose "${wrong.name}" is ${wrong.expected}`;
		throw wrongAnswerError(ctx, answer, endpoint, expected, wrong.value, itemIndex);
	}
}

/** Calls a positional endpoint whose result is a record (or a list of them), checked. */
export async function positionalRecords<T extends IDataObject | IDataObject[]>(
	ctx: BotDojoContext,
	endpoint: Endpoint,
	params: readonly unknown[],
	shape: 'object' | 'array',
	kind: keyof typeof RECORD_FIELDS,
	settings: RequestSettings = {},
): Promise<T> {
	const answer = await positionalRequest(ctx, endpoint, params, settings);
	return recordsOf<T>(ctx, answer, endpoint, shape, kind, settings.itemIndex);
}

/** The endpoint's record, or list of records (flow requests of a session), checked. */
export function recordsOf<T extends IDataObject | IDataObject[]>(
	ctx: BotDojoContext,
	answer: unknown,
	endpoint: Endpoint,
	shape: 'object' | 'array',
	kind: keyof typeof RECORD_FIELDS,
	itemIndex?: number,
): T {
	const result = resultsOf<IDataObject | IDataObject[]>(ctx, answer, endpoint, shape, itemIndex);
	const records = (Array.isArray(result) ? result : [result]).filter(
		(record) => shapeOf(record) === 'an object',
	);
	checkRecords(ctx, answer, records, kind, endpoint, itemIndex);
	return result as T;
}

/** A run's record (read by the run itself, flowRun.ts), checked field by field. */
export function checkedRunRecord(
	ctx: BotDojoContext,
	record: IDataObject,
	flowId: string,
	itemIndex: number,
): FlowRequestRecord {
	checkRecords(ctx, record, [record], 'flowRequest', ['flows', flowId, 'run'], itemIndex);
	return record as FlowRequestRecord;
}
