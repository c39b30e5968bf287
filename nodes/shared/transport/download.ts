/**
 * The download of a temporary signed link: from BotDojo's file storage, not its API, so without
 * the API key, and only to where signedLink.ts allows.
 */
import {
	NodeApiError,
	NodeOperationError,
	type IExecuteFunctions,
	type JsonObject,
} from 'n8n-workflow';

import { saidByService } from './errors';
import { knownApiKey, readCredentials, type FullResponse, type RequestSettings } from './project';
import { redactDeep } from './redaction';
import { readErrorBody } from './request';
import { DEFAULT_RETRY, header, retryWhileRateLimited } from './request';
import { checkSignedLink, linkWithoutSignature, MAX_REDIRECTS } from './signedLink';

/** A downloaded file: its body as it arrives, for n8n's binary data (never held whole here). */
export interface DownloadedFile {
	data: Parameters<IExecuteFunctions['helpers']['prepareBinaryData']>[0];
	contentType?: string;
}

/**
 * Downloads the file behind a signed link. The signature in the link is its authorisation, so
 * the request carries no BotDojo credentials: the API key must not reach the storage host.
 * The link and every redirect are checked first (signedLink.ts) and redirects are followed
 * here, hop by hop, never by the HTTP client. `expiresAt` (epoch ms) is the expiry that was
 * asked for, to tell an expired link from others.
 */
export async function downloadSignedUrl(
	ctx: IExecuteFunctions,
	url: string,
	expiresAt: number,
	settings: RequestSettings = {},
): Promise<DownloadedFile> {
	const abortSignal = settings.abortSignal ?? ctx.getExecutionCancelSignal?.();
	const { baseUrl } = await readCredentials(ctx);
	let link = await checkedLink(ctx, url, baseUrl, settings);
	for (let redirects = 0; ; redirects++) {
		const target = link;
		const response = await retryWhileRateLimited({
			send: async () =>
				(await ctx.helpers.httpRequest({
					method: 'GET',
					url: target.href,
					encoding: 'stream',
					disableFollowRedirect: true,
					returnFullResponse: true,
					ignoreHttpStatusErrors: true,
					timeout: settings.timeout,
					abortSignal,
				})) as FullResponse,
			retry: settings.retry ?? DEFAULT_RETRY,
			abortSignal,
			drain: async (refused) => void (await readErrorBody(refused.body, abortSignal)),
			networkError: (error) => downloadFailure(ctx, error, url, settings),
			refusal: async (refused) =>
				downloadRefusal(
					ctx,
					refused,
					await readErrorBody(refused.body, abortSignal),
					url,
					expiresAt,
					settings,
				),
		});
		if (response.statusCode < 300) {
			const contentType = header(response.headers, 'content-type');
			return { data: response.body as DownloadedFile['data'], contentType };
		}
		// A redirect's own body is not wanted: hang up rather than read it.
		(response.body as { destroy?: () => void } | undefined)?.destroy?.();
		const location = header(response.headers, 'location');
		if (!location || redirects >= MAX_REDIRECTS) {
			const why = location ? `more than ${MAX_REDIRECTS} times` : 'without saying where to';
			throw new NodeApiError(ctx.getNode(), { statusCode: response.statusCode } as JsonObject, {
				message: `The download link redirected ${why} (${response.statusCode})`,
				description: `Nothing was downloaded. Get a new link. Link: ${linkWithoutSignature(url)}.`,
				itemIndex: settings.itemIndex,
			});
		}
		link = await checkedLink(ctx, location, baseUrl, settings, link);
	}
}

/** The link (or a redirect's target, relative to `from`) as a URL, refused unless it is safe. */
async function checkedLink(
	ctx: IExecuteFunctions,
	text: string,
	baseUrl: string,
	settings: RequestSettings,
	from?: URL,
): Promise<URL> {
	let link: URL | undefined;
	try {
		link = new URL(text, from);
	} catch {
		link = undefined;
	}
	const problem = link
		? await checkSignedLink(ctx, link, baseUrl, from)
		: 'it is not a valid address';
	if (link && !problem) return link;
	const shown = link ? linkWithoutSignature(link) : `"${text.slice(0, 200)}"`;
	const what = from ? `The download link redirected to ${shown}` : `The download link ${shown}`;
	throw new NodeOperationError(ctx.getNode(), `${what} was not fetched: ${problem}`, {
		itemIndex: settings.itemIndex,
		description: `BotDojo's signed links are https addresses of its file storage. This one was refused so that it cannot read an address inside your network or a file of this machine; nothing was downloaded${from ? ` from ${linkWithoutSignature(from)}` : ''}. If the Base URL of the BotDojo API credential is right, report the link to BotDojo.`,
	});
}

/** A refused download; `body` is the storage's answer, read (see readErrorBody). */
function downloadRefusal(
	ctx: IExecuteFunctions,
	response: FullResponse,
	body: unknown,
	url: string,
	expiresAt: number,
	settings: RequestSettings,
): NodeApiError {
	const said = saidByService(body, knownApiKey(ctx));
	const saidLine = said ? `The storage said: "${said}". ` : '';
	const status = response.statusCode;
	const expired = Date.now() >= expiresAt || /expired/i.test(said ?? '');
	const until = new Date(expiresAt).toISOString();
	let message: string;
	let description: string;
	if (expired && (status === 400 || status === 401 || status === 403 || status === 410)) {
		message = `The download link has expired (it was valid until ${until})`;
		description = `${saidLine}Ask for a link that lasts longer and download the file before then, e.g. in the same run.`;
	} else if (status === 403 || status === 401) {
		message = `The download link was refused (${status})`;
		description = `${saidLine}Its signature does not match: the link may have been changed. Get a new link.`;
	} else if (status === 404) {
		message = 'The file behind the download link was not found (404)';
		description = `${saidLine}The document or its version may have been deleted. Get a new link.`;
	} else {
		message = `The file could not be downloaded: the link answered ${status}`;
		description = saidLine;
	}
	const shownBody = redactDeep(body, knownApiKey(ctx));
	return new NodeApiError(ctx.getNode(), { statusCode: status, body: shownBody } as JsonObject, {
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
