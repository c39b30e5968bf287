/** BotDojo's API (service-interface.md): one typed function per endpoint with its path, body and
 *  answer's shape, and `exportPages`, the export's cursor pager. Nodes never build a request. */
import { NodeApiError } from 'n8n-workflow';
import type { IDataObject } from 'n8n-workflow';

import { checkRecords, exportPlace, pageStall, resultOf, shapeOf } from './answers';
import type {
	AnswerShape,
	DocumentRecord,
	FlowRequestRecord,
	FlowSession,
	IndexStatus,
	Place,
	RecordKind,
} from './answers';
import { nodeError, wrongAnswerError } from './errors';
import type { BotDojoContext, Endpoint, RequestSettings } from './project';
import { sendWithRetries } from './request';

/** BotDojo's largest export page. */
export const MAX_PAGE_SIZE = 1000;

/** `{ params }`: trailing absent parameters left out, an absent one before a present one null. */
export function positionalBody(params: readonly unknown[]): { params: unknown[] } {
	let length = params.length;
	while (length > 0 && (params[length - 1] === undefined || params[length - 1] === null)) length--;
	return { params: params.slice(0, length).map((value) => (value === undefined ? null : value)) };
}

/** POSTs `{ params }` to a positional endpoint: its result unwrapped, of its `shape`, its records
 *  checked (`kind`: the spec's record it returns). */
async function positional<T>(
	ctx: BotDojoContext,
	endpoint: Endpoint,
	params: readonly unknown[],
	settings: RequestSettings,
	shape: AnswerShape,
	kind?: RecordKind,
): Promise<T> {
	const { body } = await sendWithRetries(ctx, 'POST', endpoint, positionalBody(params), settings);
	return resultOf<T>(ctx, body, endpoint, shape, kind, settings.itemIndex);
}

/** A new session of the flow, holding `data` (stores of variables); runs no flow. */
export async function createSession(
	ctx: BotDojoContext,
	flowId: string,
	data: IDataObject,
	itemIndex?: number,
): Promise<FlowSession> {
	const settings = { subject: { flowId }, itemIndex };
	const endpoint = ['flow_sessions', 'createSession'];
	return await positional(ctx, endpoint, [flowId, data], settings, 'an object', 'session');
}

/** Every request of one session of the flow, in order. */
export async function loadRequestsBySession(
	ctx: BotDojoContext,
	flowId: string,
	sessionId: string,
	itemIndex?: number,
): Promise<FlowRequestRecord[]> {
	const settings = { subject: { flowId, sessionId }, itemIndex };
	const endpoint = ['flow_requests', 'loadByFlowSession'];
	return await positional(ctx, endpoint, [flowId, sessionId], settings, 'an array', 'flowRequest');
}

export interface ExportQuery {
	flowId: string;
	pageSize: number; // records per request, 1 to MAX_PAGE_SIZE
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
): Promise<{ results: FlowRequestRecord[]; nextCursor?: string; hasMore: boolean }> {
	const endpoint = ['flow_requests', 'export'];
	const body = positionalBody([flowId, afterCursor, limit, fromDate, toDate]);
	const settings = { subject: { flowId }, itemIndex, abortSignal: signal };
	const { body: answer } = await sendWithRetries(ctx, 'POST', endpoint, body, settings);
	const page = (shapeOf(answer) === 'an object' ? answer : { results: answer }) as IDataObject;
	if (!Array.isArray(page.results)) {
		const expected = 'a list of records in "results"';
		throw wrongAnswerError(ctx, answer, endpoint, expected, page.results, itemIndex);
	}
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
 * just after the last record returned. Paging that does not advance (answers.ts `pageStall`)
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
		const limit = Math.min(query.pageSize, remaining);
		const pageQuery = { flowId, afterCursor, limit, fromDate, toDate, signal };
		const { results, nextCursor, hasMore } = await exportRequestsPage(ctx, pageQuery, itemIndex);
		// A page larger than asked for is cut, so the limit holds whatever BotDojo sends; its
		// cursor then points past records not returned, so it is not handed on.
		const cut = results.length > remaining;
		const records = cut ? results.slice(0, remaining) : results;
		remaining -= records.length;
		const goesOn = hasMore && remaining > 0;
		const stall = pageStall(results, { goesOn, nextCursor, cursorsSent, lastPlace, query });
		if (stall) {
			const message = `BotDojo's export of flow "${flowId}" stopped making progress on page ${page}: ${stall}`;
			const description = `The export was stopped so that it cannot loop forever or return records twice. BotDojo's paging went wrong, not the node's settings; try again later.${query.resumeHint ? ` ${query.resumeHint}` : ''}`;
			throw nodeError(ctx, message, { itemIndex, description });
		}
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
): Promise<DocumentRecord> {
	const form = new FormData();
	form.append('document', upload.file, upload.fileName);
	form.append('fileName', upload.fileName);
	form.append('logicalPath', upload.logicalPath);
	if (upload.meta) form.append('meta', JSON.stringify(upload.meta));
	const endpoint = ['documents', 'upload-file'];
	const settings = { itemIndex, subject: { logicalPath: upload.logicalPath } };
	const response = await sendWithRetries(ctx, 'POST', endpoint, form, settings).catch((error) => {
		// A 403 here has two causes a user can act on: the message says both.
		if (error instanceof NodeApiError && error.httpCode === '403') {
			error.message =
				'The API key may not upload documents (403): it lacks upload permission, or it is a flow key';
		}
		throw error;
	});
	return resultOf(ctx, response.body, endpoint, 'an object', 'document', itemIndex);
}

/** The record of the latest version of the document stored under `logicalPath`. */
export async function loadDocumentByLogicalPath(
	ctx: BotDojoContext,
	logicalPath: string,
	itemIndex?: number,
): Promise<DocumentRecord> {
	const settings = { subject: { logicalPath }, itemIndex };
	const endpoint = ['documents', 'loadByLogicalPath'];
	return await positional(ctx, endpoint, [logicalPath], settings, 'an object', 'document');
}

/** A link that downloads the document's version without a key until `expires` (ISO 8601). */
export async function getTemporarySignedUrl(
	ctx: BotDojoContext,
	document: DocumentRecord,
	expires: string,
	itemIndex?: number,
): Promise<string> {
	const subject = {
		documentId: document.id ?? undefined,
		logicalPath: document.logicalPath ?? undefined,
	};
	const endpoint = ['documents', 'getTemporarySignedUrl'];
	const settings = { subject, itemIndex };
	const url = await positional<string>(ctx, endpoint, [document, expires], settings, 'a string');
	if (url !== '') return url;
	throw nodeError(ctx, 'BotDojo answered without a download link', {
		description: 'documents/getTemporarySignedUrl returned an empty text instead of the link.',
		itemIndex,
		cause: { answer: '' },
	});
}

/** Whether the index is ready, and how much it holds. */
export async function getIndexStatus(
	ctx: BotDojoContext,
	indexId: string,
	itemIndex?: number,
): Promise<IndexStatus> {
	const settings = { subject: { indexId }, itemIndex };
	return await positional(ctx, ['indexes', 'getStatus'], [indexId], settings, 'an object');
}

/** The chunks of the index whose metadata match `query` (e.g. {"page": {"$gte": 2}}). */
export async function queryIndexMetadata(
	ctx: BotDojoContext,
	indexId: string,
	query: IDataObject,
	itemIndex?: number,
): Promise<IDataObject[]> {
	const settings = { subject: { indexId }, itemIndex };
	const endpoint = ['indexes', 'queryMetadata'];
	return await positional(ctx, endpoint, [indexId, query], settings, 'an array');
}
