/**
 * BotDojo's API (service-interface.md): one typed function per endpoint with its path, body and
 * answer's shape, and `exportPages`, the export's cursor pager. Nodes never build a request.
 * What an endpoint answers is checked: `{ results }` is unwrapped whatever sits beside it, and an
 * answer of another shape, or a record whose field has another type than the spec's, is an
 * error naming the endpoint, never passed on as data; where an export page's records lie (their
 * order, the dates asked for) tells paging that does not advance.
 */
import { NodeApiError } from 'n8n-workflow';
import type { IDataObject } from 'n8n-workflow';

import { nodeError, wrongAnswerError } from './errors';
import type { BotDojoContext, Endpoint, RequestSubject } from './project';
import { sendWithRetries } from './request';

type AnswerShape = 'an object' | 'an array' | 'a string';

/** The shape of a value in words, for errors: "an array", "a string", "null". */
export function shapeOf(value: unknown) {
	if (value === null) return 'null';
	if (value === undefined) return 'nothing';
	if (Array.isArray(value)) return 'an array';
	return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** Positional endpoints wrap their answer in `{ results }`, sometimes with more beside it;
 *  some do not wrap it. Both are read. */
export function unwrapResults(answer: unknown) {
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

type RecordKind = keyof typeof RECORD_FIELDS;
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
type FlowSession = RecordOf<'session'>;
type DocumentRecord = RecordOf<'document'>;

/** The shapes (`shapeOf`) a field of each type may have. */
const SHAPES = {
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
) {
	const fields = Object.entries(RECORD_FIELDS[kind]).flatMap(([type, names]) =>
		names.split(' ').map((name) => [name, SHAPES[type as FieldType]] as const),
	);
	for (const record of records) {
		if (shapeOf(record) !== 'an object') continue;
		for (const [name, shapes] of fields) {
			const value = (record as IDataObject)[name];
			if (value === undefined || value === null || shapes.includes(shapeOf(value))) continue;
			const expected = `records whose "${name}" is ${shapes.join(' or ')}`;
			throw wrongAnswerError(ctx, answer, endpoint, expected, value, itemIndex);
		}
	}
}

/** A record's place in the export's order: `modified`, then id (the spec pages on `modified`). */
interface Place {
	modified: string;
	at: number;
	id: string;
}

function exportPlace(record: IDataObject | undefined) {
	const { modified, id } = record ?? {};
	if (typeof modified !== 'string' || typeof id !== 'string') return undefined;
	const at = Date.parse(modified);
	return Number.isNaN(at) ? undefined : { modified, at, id };
}

/** Why an export page shows its paging does not advance, or undefined. `goesOn`: it says more
 *  follow and more are wanted. */
function pageStall(
	results: IDataObject[],
	page: {
		goesOn: boolean;
		nextCursor?: string;
		cursorsSent: Set<string>;
		lastPlace?: Place;
		query: ExportQuery;
	},
) {
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
function outsideDates(results: IDataObject[], { fromDate, toDate }: ExportQuery) {
	const [first, last] = [exportPlace(results[0]), exportPlace(results[results.length - 1])];
	if (first && fromDate && first.at < Date.parse(fromDate))
		return `modified ${first.modified}, From Date ${fromDate}`;
	if (last && toDate && last.at > Date.parse(toDate))
		return `modified ${last.modified}, To Date ${toDate}`;
	return undefined;
}

/** Later, or as late with another id: how ids order at the same time is BotDojo's own. */
function isAfter(next: Place, last: Place) {
	return next.at > last.at || (next.at === last.at && next.id !== last.id);
}

/** BotDojo's largest export page. */
const MAX_PAGE_SIZE = 1000;

/** `{ params }`: trailing absent parameters left out, an absent one before a present one null. */
export function positionalBody(params: readonly unknown[]) {
	let length = params.length;
	while (length > 0 && (params[length - 1] === undefined || params[length - 1] === null)) length--;
	return { params: params.slice(0, length).map((value) => (value === undefined ? null : value)) };
}

/** POSTs `{ params }` to a positional endpoint, or a form: its result unwrapped, of its `shape`,
 *  its records checked (`kind`: the spec's record it returns). */
async function post<T>(
	ctx: BotDojoContext,
	endpoint: Endpoint,
	params: readonly unknown[] | FormData,
	subject: RequestSubject,
	itemIndex: number | undefined,
	shape: AnswerShape,
	kind?: RecordKind,
): Promise<T> {
	const { body: answer } = await sendWithRetries(
		ctx,
		'POST',
		endpoint,
		params instanceof FormData ? params : positionalBody(params),
		{ subject, itemIndex },
	);
	const result = unwrapResults(answer);
	if (shapeOf(result) !== shape)
		throw wrongAnswerError(ctx, answer, endpoint, shape, result, itemIndex);
	if (kind)
		checkRecords(ctx, answer, Array.isArray(result) ? result : [result], kind, endpoint, itemIndex);
	return result as T;
}

/** A new session of the flow, holding `data` (stores of variables); runs no flow. */
export async function createSession(
	ctx: BotDojoContext,
	flowId: string,
	data: IDataObject,
	itemIndex?: number,
) {
	return await post<FlowSession>(
		ctx,
		['flow_sessions', 'createSession'],
		[flowId, data],
		{ flowId },
		itemIndex,
		'an object',
		'session',
	);
}

/** Every request of one session of the flow, in order. */
export async function loadRequestsBySession(
	ctx: BotDojoContext,
	flowId: string,
	sessionId: string,
	itemIndex?: number,
) {
	return await post<FlowRequestRecord[]>(
		ctx,
		['flow_requests', 'loadByFlowSession'],
		[flowId, sessionId],
		{ flowId, sessionId },
		itemIndex,
		'an array',
		'flowRequest',
	);
}

export interface ExportQuery {
	flowId: string;
	pageSize?: number; // records per request, 1 to MAX_PAGE_SIZE (when absent)
	startCursor?: string; // the cursor of an earlier export to start after
	fromDate?: string; // ISO 8601 UTC, inclusive, on `modified`
	toDate?: string;
	limit?: number; // records in all; every record when undefined
	resumeHint?: string; // how to go on from a known point, in the node's words, if paging stalls
	signal?: AbortSignal; // ends the export's requests and waits (a poll's deadline)
}

interface PageQuery extends Pick<ExportQuery, 'flowId' | 'fromDate' | 'toDate' | 'signal'> {
	afterCursor?: string;
	limit: number; // records at most, 1 to MAX_PAGE_SIZE
}

/** One page of the flow's finished requests, oldest first (`exportPages` follows the cursors).
 *  The answer is read liberally: a bare array is a single, last page. */
export async function exportRequestsPage(
	ctx: BotDojoContext,
	{ flowId, afterCursor, limit, fromDate, toDate, signal }: PageQuery,
	itemIndex = 0,
) {
	const endpoint = ['flow_requests', 'export'];
	const { body: answer } = await sendWithRetries(
		ctx,
		'POST',
		endpoint,
		positionalBody([flowId, afterCursor, limit, fromDate, toDate]),
		{ subject: { flowId }, itemIndex, abortSignal: signal },
	);
	const page = (shapeOf(answer) === 'an object' ? answer : { results: answer }) as IDataObject;
	if (!Array.isArray(page.results))
		throw wrongAnswerError(
			ctx,
			answer,
			endpoint,
			'a list of records in "results"',
			page.results,
			itemIndex,
		);
	checkRecords(ctx, answer, page.results, 'flowRequest', endpoint, itemIndex);
	const { nextCursor: cursor, hasMore } = page;
	return {
		results: page.results as FlowRequestRecord[],
		nextCursor: typeof cursor === 'string' && cursor !== '' ? cursor : undefined,
		hasMore: hasMore === true || hasMore === 'true',
	};
}

/**
 * The export's pages, in order: each with the cursor it was asked for with (none for the very
 * first), BotDojo's cursor after its last record, and whether BotDojo holds more. With a limit,
 * each request asks for no more than the records still wanted, so a page's `nextCursor` points
 * just after the last record returned. Paging that does not advance (`pageStall`)
 * stops with an error instead of looping.
 */
export async function* exportPages(ctx: BotDojoContext, query: ExportQuery, itemIndex = 0) {
	const { flowId, fromDate, toDate, signal } = query;
	const cursorsSent = new Set<string>();
	let afterCursor = query.startCursor || undefined;
	let remaining = query.limit ?? Number.POSITIVE_INFINITY;
	let lastPlace: Place | undefined;
	for (let page = 1; remaining > 0; page++) {
		if (afterCursor !== undefined) cursorsSent.add(afterCursor);
		const limit = Math.min(query.pageSize ?? MAX_PAGE_SIZE, remaining);
		const { results, nextCursor, hasMore } = await exportRequestsPage(
			ctx,
			{ flowId, afterCursor, limit, fromDate, toDate, signal },
			itemIndex,
		);
		// A page larger than asked for is cut, so the limit holds whatever BotDojo sends; its
		// cursor then points past records not returned, so it is not handed on.
		const cut = results.length > remaining;
		const records = cut ? results.slice(0, remaining) : results;
		remaining -= records.length;
		const goesOn = hasMore && remaining > 0;
		const stall = pageStall(results, { goesOn, nextCursor, cursorsSent, lastPlace, query });
		if (stall)
			throw nodeError(
				ctx,
				`BotDojo's export of flow "${flowId}" stopped making progress on page ${page}: ${stall}`,
				{
					itemIndex,
					description: `The export was stopped so that it cannot loop forever or return records twice. BotDojo's paging went wrong, not the node's settings; try again later.${query.resumeHint ? ` ${query.resumeHint}` : ''}`,
				},
			);
		lastPlace = exportPlace(results[results.length - 1]) ?? lastPlace;
		yield {
			records,
			afterCursor,
			nextCursor: cut ? undefined : nextCursor,
			hasMore: hasMore || cut,
		};
		if (!goesOn) return;
		afterCursor = nextCursor;
	}
}

/** Stores a file under its logical path (multipart, named fields); `meta`: custom attributes. */
export async function uploadDocument(
	ctx: BotDojoContext,
	upload: { file: Blob; fileName: string; logicalPath: string; meta?: IDataObject },
	itemIndex?: number,
) {
	const form = new FormData();
	form.append('document', upload.file, upload.fileName);
	form.append('fileName', upload.fileName);
	form.append('logicalPath', upload.logicalPath);
	if (upload.meta) form.append('meta', JSON.stringify(upload.meta));
	return await post<DocumentRecord>(
		ctx,
		['documents', 'upload-file'],
		form,
		{ logicalPath: upload.logicalPath },
		itemIndex,
		'an object',
		'document',
	).catch((error) => {
		// A 403 here has two causes a user can act on: the message says both.
		if (error instanceof NodeApiError && error.httpCode === '403') {
			error.message =
				'The API key may not upload documents (403): it lacks upload permission, or it is a flow key';
		}
		throw error;
	});
}

/** The record of the latest version of the document stored under `logicalPath`. */
export async function loadDocumentByLogicalPath(
	ctx: BotDojoContext,
	logicalPath: string,
	itemIndex?: number,
) {
	return await post<DocumentRecord>(
		ctx,
		['documents', 'loadByLogicalPath'],
		[logicalPath],
		{ logicalPath },
		itemIndex,
		'an object',
		'document',
	);
}

/** A link that downloads the document's version without a key until `expires` (ISO 8601). */
export async function getTemporarySignedUrl(
	ctx: BotDojoContext,
	document: DocumentRecord,
	expires: string,
	itemIndex?: number,
) {
	const url = await post<string>(
		ctx,
		['documents', 'getTemporarySignedUrl'],
		[document, expires],
		{ documentId: document.id ?? undefined, logicalPath: document.logicalPath ?? undefined },
		itemIndex,
		'a string',
	);
	if (url !== '') return url;
	throw nodeError(ctx, 'BotDojo answered without a download link', {
		description: 'documents/getTemporarySignedUrl returned an empty text instead of the link.',
		itemIndex,
		cause: { answer: '' },
	});
}

/** Whether the index is ready, and how much it holds (fields not in the spec: kept as sent). */
export async function getIndexStatus(ctx: BotDojoContext, indexId: string, itemIndex?: number) {
	return await post<IDataObject>(
		ctx,
		['indexes', 'getStatus'],
		[indexId],
		{ indexId },
		itemIndex,
		'an object',
	);
}

/** The chunks of the index whose metadata match `query` (e.g. {"page": {"$gte": 2}}). */
export async function queryIndexMetadata(
	ctx: BotDojoContext,
	indexId: string,
	query: IDataObject,
	itemIndex?: number,
) {
	return await post<IDataObject[]>(
		ctx,
		['indexes', 'queryMetadata'],
		[indexId, query],
		{ indexId },
		itemIndex,
		'an array',
	);
}
