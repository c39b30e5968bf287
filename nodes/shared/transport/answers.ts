/**
 * What an endpoint answers, checked: `{ results }` is unwrapped whatever sits beside it, and an
 * answer of another shape, or a record whose field has another type than the spec's, is an
 * error naming the endpoint, never passed on as data. And where an export page's records lie
 * (their order, the dates asked for), which tells paging that does not advance.
 */
import type { IDataObject } from 'n8n-workflow';

import { wrongAnswerError } from './errors';
import type { BotDojoContext, Endpoint } from './project';

export type AnswerShape = 'an object' | 'an array' | 'a string';

/** The shape of a value in words, for errors: "an array", "a string", "null". */
export function shapeOf(value: unknown): string {
	if (value === null) return 'null';
	if (value === undefined) return 'nothing';
	if (Array.isArray(value)) return 'an array';
	return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** Positional endpoints wrap their answer in `{ results }`, sometimes with more beside it;
 *  some do not wrap it. Both are read. */
export function unwrapResults(answer: unknown): unknown {
	const wrapped = shapeOf(answer) === 'an object' && Object.hasOwn(answer as object, 'results');
	return wrapped ? (answer as { results: unknown }).results : answer;
}

// The records of the spec (service-interface.md, "Resources and their fields"), their fields by
// type: each may be absent or null; fields not listed are kept as sent. 'id' is a string, as the
// spec says, or a number, which bad data may hold: refusing it would stop an export for good.
const RECORD_FIELDS = {
	flowRequest: {
		id: 'id',
		string: 'flow_id flow_session_id status version startTime endTime created modified',
		number: 'duration',
		object: 'body response userMessage aiMessage',
	},
	session: { string: 'id flow_id created modified', object: 'sessionState' },
	document: { string: 'id fileName contentType logicalPath version created', number: 'sizeBytes' },
} as const;

export type RecordKind = keyof typeof RECORD_FIELDS;
interface FieldValues {
	string: string;
	number: number;
	object: IDataObject;
	id: string | number;
}
type FieldType = keyof FieldValues;
type Words<S> = S extends `${infer First} ${infer Rest}` ? First | Words<Rest> : S & string;
type RecordOf<K extends RecordKind, F = (typeof RECORD_FIELDS)[K]> = IDataObject & {
	[T in keyof F & FieldType as Words<F[T]>]?: FieldValues[T] | null;
};

/** A flow request: the answer of a run, a row of an export. */
export type FlowRequestRecord = RecordOf<'flowRequest'>;
export type FlowSession = RecordOf<'session'>;
export type DocumentRecord = RecordOf<'document'>;
/** An index's status: its fields are not in the spec, so every field is kept as sent. */
export type IndexStatus = IDataObject;

/** The shapes (`shapeOf`) a field of each type may have. */
const SHAPES: Record<FieldType, readonly string[]> = {
	string: ['a string'],
	number: ['a number'],
	object: ['an object'],
	id: ['a string', 'a number'],
};

/** Checks each record against the spec's field types; a wrong one names the field. */
export function checkRecords(
	ctx: BotDojoContext,
	answer: unknown,
	records: readonly unknown[],
	kind: RecordKind,
	endpoint: Endpoint,
	itemIndex?: number,
): void {
	const fields = Object.entries(RECORD_FIELDS[kind]).flatMap(([type, names]) =>
		names.split(' ').map((name) => [name, SHAPES[type as FieldType]] as const),
	);
	for (const record of records) {
		if (shapeOf(record) !== 'an object') continue;
		for (const [name, shapes] of fields) {
			const value = (record as IDataObject)[name];
			if (value === undefined || value === null) continue;
			if (shapes.includes(shapeOf(value))) continue;
			const expected = `records whose "${name}" is ${shapes.join(' or ')}`;
			throw wrongAnswerError(ctx, answer, endpoint, expected, value, itemIndex);
		}
	}
}

/** The endpoint's result, unwrapped, of its shape, its records (`kind`) checked. */
export function resultOf<T>(
	ctx: BotDojoContext,
	answer: unknown,
	endpoint: Endpoint,
	shape: AnswerShape,
	kind?: RecordKind,
	itemIndex?: number,
): T {
	const result = unwrapResults(answer);
	if (shapeOf(result) !== shape) {
		throw wrongAnswerError(ctx, answer, endpoint, shape, result, itemIndex);
	}
	if (kind)
		checkRecords(ctx, answer, Array.isArray(result) ? result : [result], kind, endpoint, itemIndex);
	return result as T;
}

/** A record's place in the export's order: `modified`, then id (the spec pages on `modified`). */
export interface Place {
	modified: string;
	at: number;
	id: string;
}

export function exportPlace(record: IDataObject | undefined): Place | undefined {
	const { modified, id } = record ?? {};
	if (typeof modified !== 'string' || typeof id !== 'string') return undefined;
	const at = Date.parse(modified);
	return Number.isNaN(at) ? undefined : { modified, at, id };
}

/** Why an export page shows its paging does not advance, or undefined. `goesOn`: it says more
 *  follow and more are wanted. */
export function pageStall(
	results: IDataObject[],
	page: {
		goesOn: boolean;
		nextCursor?: string;
		cursorsSent: Set<string>;
		lastPlace?: Place;
		query: { fromDate?: string; toDate?: string };
	},
): string | undefined {
	const { goesOn, nextCursor, lastPlace } = page;
	if (goesOn) {
		if (results.length === 0) return 'it said more records follow but sent an empty page';
		if (nextCursor === undefined) return 'it said more records follow but sent no cursor';
		if (page.cursorsSent.has(nextCursor))
			return 'it sent a cursor it had already sent, so the next page would repeat an earlier one';
	}
	const first = exportPlace(results[0]);
	if (lastPlace && first && !isAfter(first, lastPlace))
		return `its records are not after the previous page's last one (modified ${lastPlace.modified}, id "${lastPlace.id}"), so the pages are not advancing`;
	const outside = goesOn ? outsideDates(results, page.query) : undefined;
	if (outside)
		return `its records are not within the dates asked for (${outside}), so the pages would not end`;
	return undefined;
}

/** Where records lie outside From Date–To Date (inclusive): BotDojo filters on them, so records
 *  past them on a page going on mean its paging would not end. */
function outsideDates(
	results: IDataObject[],
	{ fromDate, toDate }: { fromDate?: string; toDate?: string },
) {
	const [first, last] = [exportPlace(results[0]), exportPlace(results[results.length - 1])];
	if (first && fromDate && first.at < Date.parse(fromDate))
		return `modified ${first.modified}, From Date ${fromDate}`;
	if (last && toDate && last.at > Date.parse(toDate))
		return `modified ${last.modified}, To Date ${toDate}`;
	return undefined;
}

/** Later, or as late with another id: how ids order at the same time is BotDojo's own. */
function isAfter(next: Place, last: Place): boolean {
	return next.at > last.at || (next.at === last.at && next.id !== last.id);
}
