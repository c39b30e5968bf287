/**
 * BotDojo's API as the nodes use it (../shared/spec/service-interface.md): one typed function per
 * endpoint, holding its path, its body (positional `{ params }`, `{ body, options }` for a run,
 * multipart for an upload) and its answer's shape. Nodes call these and never build a request.
 */
import {
	NodeApiError,
	type IDataObject,
	type IExecuteFunctions,
	type JsonObject,
} from 'n8n-workflow';

import {
	checkRecords,
	resultOf,
	wrongAnswerError,
	type AnswerShape,
	type DocumentRecord,
	type FlowRequestRecord,
	type FlowSession,
	type IndexStatus,
} from './answers';
import {
	withCancelSignal,
	type BotDojoContext,
	type Endpoint,
	type FullResponse,
	type RequestSettings,
	type RetryPolicy,
} from './project';
import { positionalRequest, sendWithRetries } from './request';

/** A positional endpoint's result, of its shape; `kind` names the spec's record it returns. */
async function positional<T>(
	ctx: BotDojoContext,
	endpoint: Endpoint,
	params: readonly unknown[],
	shape: AnswerShape,
	settings: RequestSettings,
	kind?: Parameters<typeof checkRecords>[3],
): Promise<T> {
	const answer = await positionalRequest(ctx, endpoint, params, settings);
	return resultOf<T>(ctx, answer, endpoint, shape, kind, settings.itemIndex);
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
	return await positional(ctx, endpoint, [flowId, data], 'an object', settings, 'session');
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
	return await positional(ctx, endpoint, [flowId, sessionId], 'an array', settings, 'flowRequest');
}

export interface ExportPageQuery {
	flowId: string;
	/** The cursor after which the page starts; the first page without one. */
	afterCursor?: string;
	/** Records at most, 1 to 1000. */
	limit: number;
	/** ISO 8601 UTC, inclusive, on `modified`. */
	fromDate?: string;
	toDate?: string;
}

export interface ExportAnswer {
	results: FlowRequestRecord[];
	nextCursor?: string;
	hasMore: boolean;
}

/** One page of the flow's finished requests, oldest first (exportPages.ts follows the cursors).
 *  The answer is read liberally: a bare array is a single, last page. */
export async function exportRequestsPage(
	ctx: BotDojoContext,
	query: ExportPageQuery,
	itemIndex = 0,
): Promise<ExportAnswer> {
	const { flowId, afterCursor, limit, fromDate, toDate } = query;
	const endpoint = ['flow_requests', 'export'];
	const params = [flowId, afterCursor, limit, fromDate, toDate];
	const answer = await positionalRequest(ctx, endpoint, params, { subject: { flowId }, itemIndex });
	const page = (Array.isArray(answer) ? { results: answer } : (answer ?? {})) as IDataObject;
	if (!Array.isArray(page.results)) {
		const found = answer !== null && typeof answer === 'object' ? page.results : answer;
		const expected = 'a list of records in "results"';
		throw wrongAnswerError(ctx, answer, endpoint, expected, found, itemIndex);
	}
	checkRecords(ctx, answer, page.results, 'flowRequest', endpoint, itemIndex);
	const { nextCursor: cursor, hasMore } = page;
	return {
		results: page.results as FlowRequestRecord[],
		nextCursor: typeof cursor === 'string' && cursor !== '' ? cursor : undefined,
		hasMore: !Array.isArray(answer) && (hasMore === true || hasMore === 'true'),
	};
}

export interface RunRequest {
	flowId: string;
	/** The session to run in; a new one when absent. */
	sessionId?: string;
	/** The flow's input. */
	body: IDataObject;
	/** The run's options as sent (stream, version, override, evalOptions…). */
	options: IDataObject;
	itemIndex: number;
	/** Aborts the request and its stream, also after the answer began (link it to Stop). */
	abortSignal: AbortSignal;
	retry: RetryPolicy;
	/** The node's words for a 429 (see RequestSettings). */
	rateLimitAdvice?: string;
}

/**
 * POSTs a run; its answer is left for the run to read within its deadline and Max Stream Line.
 * Not repeatable: once BotDojo accepted it the flow may have run, so only a 429/503 is retried.
 * n8n's helper puts the execution's signal on a request, so the context's is the run's.
 */
export async function runFlow(ctx: IExecuteFunctions, run: RunRequest): Promise<FullResponse> {
	const { flowId, sessionId, itemIndex, abortSignal, retry, rateLimitAdvice } = run;
	const options = sessionId ? { flow_session_id: sessionId, ...run.options } : run.options;
	const subject = sessionId ? { flowId, sessionId } : { flowId };
	const settings = { subject, itemIndex, abortSignal, retry, rateLimitAdvice };
	// timeout 0 turns off n8n's own 300 s default: the run's deadline alone bounds it.
	return await sendWithRetries(
		withCancelSignal(ctx, abortSignal),
		'POST',
		['flows', flowId, 'run'],
		{ body: run.body, options },
		{ ...settings, repeatable: false, timeout: 0, readByCaller: true },
	);
}

export interface DocumentUpload {
	file: Blob;
	fileName: string;
	logicalPath: string;
	/** Custom attributes stored with the document. */
	meta?: IDataObject;
}

/** Stores a file under its logical path (multipart, named fields). */
export async function uploadDocument(
	ctx: BotDojoContext,
	upload: DocumentUpload,
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
	return await positional(ctx, endpoint, [logicalPath], 'an object', settings, 'document');
}

/** A link that downloads the document's version without a key until `expires` (ISO 8601). */
export async function getTemporarySignedUrl(
	ctx: BotDojoContext,
	document: DocumentRecord,
	expires: string,
	itemIndex?: number,
): Promise<string> {
	const { id, logicalPath } = document;
	const subject = { documentId: id ?? undefined, logicalPath: logicalPath ?? undefined };
	const endpoint = ['documents', 'getTemporarySignedUrl'];
	const url = await positional<string>(ctx, endpoint, [document, expires], 'a string', {
		subject,
		itemIndex,
	});
	if (url !== '') return url;
	throw new NodeApiError(ctx.getNode(), { answer: '' } as JsonObject, {
		message: 'BotDojo answered without a download link',
		description: 'documents/getTemporarySignedUrl returned an empty text instead of the link.',
		itemIndex,
	});
}

/** Whether the index is ready, and how much it holds. */
export async function getIndexStatus(
	ctx: BotDojoContext,
	indexId: string,
	itemIndex?: number,
): Promise<IndexStatus> {
	const settings = { subject: { indexId }, itemIndex };
	return await positional(ctx, ['indexes', 'getStatus'], [indexId], 'an object', settings);
}

/** The chunks of the index whose metadata match `query` (e.g. {"page": {"$gte": 2}}). */
export async function queryIndexMetadata(
	ctx: BotDojoContext,
	indexId: string,
	query: IDataObject,
	itemIndex?: number,
): Promise<IDataObject[]> {
	const settings = { subject: { indexId }, itemIndex };
	return await positional(
		ctx,
		['indexes', 'queryMetadata'],
		[indexId, query],
		'an array',
		settings,
	);
}
