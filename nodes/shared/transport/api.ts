/**
 * BotDojo's API as the nodes use it: one typed function per endpoint, each holding its path,
 * its body (positional `{ params }`, `{ body, options }` for a run, multipart for an upload) and
 * the shape of its answer. Nodes call these and never build a path or a body.
 * The endpoints are those of ../shared/spec/service-interface.md.
 */
import {
	NodeApiError,
	type IDataObject,
	type IExecuteFunctions,
	type JsonObject,
} from 'n8n-workflow';

import {
	checkRecords,
	positionalRecords,
	positionalResults,
	recordsOf,
	wrongAnswerError,
	type DocumentRecord,
	type FlowRequestRecord,
	type FlowSession,
	type IndexStatus,
} from './answers';
import {
	withCancelSignal,
	type BotDojoContext,
	type FullResponse,
	type RetryPolicy,
} from './project';
import { botDojoRequest, positionalRequest, sendWithRetries } from './request';

// Flow sessions

/** A new session of the flow, holding `data` (stores of variables); runs no flow. */
export async function createSession(
	ctx: BotDojoContext,
	flowId: string,
	data: IDataObject,
	itemIndex?: number,
): Promise<FlowSession> {
	return await positionalRecords<FlowSession>(
		ctx,
		['flow_sessions', 'createSession'],
		[flowId, data],
		'object',
		'session',
		{ subject: { flowId }, itemIndex },
	);
}

// Flow requests

/** Every request of one session of the flow, in order. */
export async function loadRequestsBySession(
	ctx: BotDojoContext,
	flowId: string,
	sessionId: string,
	itemIndex?: number,
): Promise<FlowRequestRecord[]> {
	return await positionalRecords<FlowRequestRecord[]>(
		ctx,
		['flow_requests', 'loadByFlowSession'],
		[flowId, sessionId],
		'array',
		'flowRequest',
		{ subject: { flowId, sessionId }, itemIndex },
	);
}

const EXPORT_ENDPOINT = ['flow_requests', 'export'] as const;

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

/** One page of the flow's finished requests, oldest first (exportPages.ts follows the cursors). */
export async function exportRequestsPage(
	ctx: BotDojoContext,
	query: ExportPageQuery,
	itemIndex = 0,
): Promise<ExportAnswer> {
	const { flowId, afterCursor, limit, fromDate, toDate } = query;
	const answer = await positionalRequest(
		ctx,
		EXPORT_ENDPOINT,
		[flowId, afterCursor, limit, fromDate, toDate],
		{ subject: { flowId }, itemIndex },
	);
	return readExportAnswer(ctx, answer, itemIndex);
}

/** `{ results, nextCursor, hasMore }`, read liberally (a bare array is a single, last page). */
function readExportAnswer(ctx: BotDojoContext, answer: unknown, itemIndex: number): ExportAnswer {
	const records = (list: unknown[]) => {
		const objects = list.filter((record) => record !== null && typeof record === 'object');
		checkRecords(
			ctx,
			answer,
			objects as FlowRequestRecord[],
			'flowRequest',
			EXPORT_ENDPOINT,
			itemIndex,
		);
		return list as FlowRequestRecord[];
	};
	if (Array.isArray(answer)) return { results: records(answer), hasMore: false };
	const body = (answer ?? {}) as { results?: unknown; nextCursor?: unknown; hasMore?: unknown };
	if (!Array.isArray(body.results)) {
		const found = answer !== null && typeof answer === 'object' ? body.results : answer;
		const expected = 'a list of records in "results"';
		throw wrongAnswerError(ctx, answer, EXPORT_ENDPOINT, expected, found, itemIndex);
	}
	const cursor = body.nextCursor;
	return {
		results: records(body.results),
		nextCursor: typeof cursor === 'string' && cursor !== '' ? cursor : undefined,
		hasMore: body.hasMore === true || body.hasMore === 'true',
	};
}

// Running a flow

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
 * POSTs a run. It is not repeatable: once BotDojo accepted it, the flow may have run, so only a
 * 429/503 (refused before running) is retried. n8n's helper replaces a request's own signal by
 * the execution's, so the helper is called on a context whose execution signal is the run's.
 */
export async function runFlow(ctx: IExecuteFunctions, run: RunRequest): Promise<FullResponse> {
	const { flowId, sessionId } = run;
	const options = sessionId ? { flow_session_id: sessionId, ...run.options } : run.options;
	return await sendWithRetries(
		withCancelSignal(ctx, run.abortSignal),
		'POST',
		['flows', flowId, 'run'],
		{ body: run.body, options },
		{
			subject: sessionId ? { flowId, sessionId } : { flowId },
			itemIndex: run.itemIndex,
			repeatable: false,
			abortSignal: run.abortSignal,
			retry: run.retry,
			rateLimitAdvice: run.rateLimitAdvice,
			// 0 turns off n8n's own 300 s default: the run's deadline alone bounds it.
			timeout: 0,
			// Streamed or not, the run reads its answer within its deadline and Max Stream Line.
			readByCaller: true,
		},
	);
}

// Documents

export interface DocumentUpload {
	file: Blob;
	fileName: string;
	logicalPath: string;
	/** Custom attributes stored with the document. */
	meta?: IDataObject;
}

const UPLOAD_ENDPOINT = ['documents', 'upload-file'];

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
	const settings = { itemIndex, subject: { logicalPath: upload.logicalPath } };
	const answer = await botDojoRequest(ctx, 'POST', UPLOAD_ENDPOINT, form, settings).catch(
		(error: unknown) => Promise.reject(explainUploadRefusal(error)),
	);
	return recordsOf<DocumentRecord>(ctx, answer, UPLOAD_ENDPOINT, 'object', 'document', itemIndex);
}

/** A 403 on upload has two causes a user can act on: both are said in the message itself. */
function explainUploadRefusal(error: unknown): unknown {
	if (error instanceof NodeApiError && error.httpCode === '403') {
		error.message =
			'The API key may not upload documents (403): it lacks upload permission, or it is a flow key';
	}
	return error;
}

/** The record of the latest version of the document stored under `logicalPath`. */
export async function loadDocumentByLogicalPath(
	ctx: BotDojoContext,
	logicalPath: string,
	itemIndex?: number,
): Promise<DocumentRecord> {
	return await positionalRecords<DocumentRecord>(
		ctx,
		['documents', 'loadByLogicalPath'],
		[logicalPath],
		'object',
		'document',
		{ subject: { logicalPath }, itemIndex },
	);
}

/** A link that downloads the document's version without a key until `expires` (ISO 8601). */
export async function getTemporarySignedUrl(
	ctx: BotDojoContext,
	document: DocumentRecord,
	expires: string,
	itemIndex?: number,
): Promise<string> {
	const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
	const url = await positionalResults<string>(
		ctx,
		['documents', 'getTemporarySignedUrl'],
		[document, expires],
		'string',
		{
			subject: { documentId: text(document.id), logicalPath: text(document.logicalPath) },
			itemIndex,
		},
	);
	if (url === '') {
		throw new NodeApiError(ctx.getNode(), { answer: '' } as JsonObject, {
			message: 'BotDojo answered without a download link',
			description: 'documents/getTemporarySignedUrl returned an empty text instead of the link.',
			itemIndex,
		});
	}
	return url;
}

// Indexes

/** Whether the index is ready, and how much it holds. */
export async function getIndexStatus(
	ctx: BotDojoContext,
	indexId: string,
	itemIndex?: number,
): Promise<IndexStatus> {
	return await positionalResults<IndexStatus>(ctx, ['indexes', 'getStatus'], [indexId], 'object', {
		subject: { indexId },
		itemIndex,
	});
}

/** The chunks of the index whose metadata match `query` (e.g. {"page": {"$gte": 2}}). */
export async function queryIndexMetadata(
	ctx: BotDojoContext,
	indexId: string,
	query: IDataObject,
	itemIndex?: number,
): Promise<IDataObject[]> {
	return await positionalResults<IDataObject[]>(
		ctx,
		['indexes', 'queryMetadata'],
		[indexId, query],
		'array',
		{ subject: { indexId }, itemIndex },
	);
}
