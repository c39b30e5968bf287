/**
 * Documents: the multipart upload and the download of a temporary signed link.
 */
import {
	NodeApiError,
	type IDataObject,
	type IExecuteFunctions,
	type JsonObject,
} from 'n8n-workflow';

import { resultsOf } from './answers';
import { serviceMessage } from './errors';
import {
	botDojoRequest,
	DEFAULT_RETRY,
	header,
	retryWhileRateLimited,
	type FullResponse,
	type RequestSettings,
} from './request';

const UPLOAD_ENDPOINT = ['documents', 'upload-file'];

/**
 * Uploads a document as `multipart/form-data` (named fields, not positional). Redirects are not
 * followed: a client that follows them keeps a copy of the whole body to send it again.
 */
export async function uploadRequest(
	this: IExecuteFunctions,
	form: FormData,
	settings: RequestSettings = {},
): Promise<IDataObject> {
	let answer: unknown;
	try {
		answer = await botDojoRequest.call(this, 'POST', UPLOAD_ENDPOINT, form, settings, {
			disableFollowRedirect: true,
		});
	} catch (error) {
		throw explainUploadRefusal(error);
	}
	return resultsOf<IDataObject>(this, answer, UPLOAD_ENDPOINT, 'object', settings.itemIndex);
}

/** A 403 on upload has two causes a user can act on: say both in the message itself. */
function explainUploadRefusal(error: unknown): unknown {
	if (error instanceof NodeApiError && error.httpCode === '403') {
		error.message =
			'The API key may not upload documents (403): it lacks upload permission, or it is a flow key';
	}
	return error;
}

export interface DownloadedFile {
	data: Buffer;
	contentType?: string;
}

/**
 * Downloads the file behind a signed link. The signature in the link is its authorisation, so
 * the request carries no BotDojo credentials: the API key must not reach the storage host.
 * `expiresAt` (epoch ms) is the expiry that was asked for, to tell an expired link from others.
 */
export async function downloadSignedUrl(
	this: IExecuteFunctions,
	url: string,
	expiresAt: number,
	settings: RequestSettings = {},
): Promise<DownloadedFile> {
	const abortSignal = settings.abortSignal ?? this.getExecutionCancelSignal?.();
	const response = await retryWhileRateLimited({
		send: async () =>
			(await this.helpers.httpRequest({
				method: 'GET',
				url,
				encoding: 'arraybuffer',
				returnFullResponse: true,
				ignoreHttpStatusErrors: true,
				timeout: settings.timeout,
				abortSignal,
			})) as FullResponse,
		retry: settings.retry ?? DEFAULT_RETRY,
		abortSignal,
		networkError: (error) => downloadFailure(this, error, url, settings),
		refusal: (refused) => downloadRefusal(this, refused, url, expiresAt, settings),
	});
	const body = response.body;
	return {
		data: Buffer.isBuffer(body) ? body : Buffer.from(body as ArrayBuffer),
		contentType: header(response.headers, 'content-type'),
	};
}

/** The link without its query (the signature): enough to say where, nothing to reuse. */
function linkWithoutSignature(url: string): string {
	try {
		const parsed = new URL(url);
		return `${parsed.origin}${parsed.pathname}`;
	} catch {
		return 'the download link';
	}
}

function downloadRefusal(
	ctx: IExecuteFunctions,
	response: FullResponse,
	url: string,
	expiresAt: number,
	settings: RequestSettings,
): NodeApiError {
	const raw = response.body;
	const text = Buffer.isBuffer(raw) ? raw.toString('utf8') : typeof raw === 'string' ? raw : '';
	let body: unknown = text;
	try {
		body = JSON.parse(text);
	} catch {
		// a plain-text answer is shown as it is
	}
	const said = serviceMessage(body);
	const saidLine = said ? `The storage said: "${said}". ` : '';
	const status = response.statusCode;
	const expired = Date.now() >= expiresAt || /expired/i.test(said ?? '');
	const until = new Date(expiresAt).toISOString();
	let message: string;
	let description: string;
	if (expired && (status === 400 || status === 401 || status === 403 || status === 410)) {
		message = `The download link has expired (it was valid until ${until})`;
		description = `${saidLine}Ask for a link that lasts longer (Expires) and download it before then, e.g. with the Download File option of this node.`;
	} else if (status === 403 || status === 401) {
		message = `The download link was refused (${status})`;
		description = `${saidLine}Its signature does not match: the link may have been changed. Get a new link.`;
	} else if (status === 404) {
		message = 'The file behind the download link was not found (404)';
		description = `${saidLine}The document or its version may have been deleted. Get a new link.`;
	} else {
		message = `Downloading the file failed (${status})`;
		description = saidLine;
	}
	return new NodeApiError(ctx.getNode(), { statusCode: status, body } as JsonObject, {
		message,
		description: `${description} Link: ${linkWithoutSignature(url)}.`.trim(),
		httpCode: String(status),
		itemIndex: settings.itemIndex,
	});
}

function downloadFailure(
	ctx: IExecuteFunctions,
	error: unknown,
	url: string,
	settings: RequestSettings,
): NodeApiError {
	const code = (error as { code?: string })?.code ?? '';
	const raw = (error as Error)?.message ?? String(error);
	const cancelled = code === 'ERR_CANCELED' || /aborted|canceled/i.test(raw);
	return new NodeApiError(ctx.getNode(), { message: raw, code } as JsonObject, {
		message: cancelled
			? 'The download was canceled'
			: `Could not download the file from ${linkWithoutSignature(url)}${code ? ` (${code})` : ''}`,
		description: `${raw}.`,
		itemIndex: settings.itemIndex,
	});
}
