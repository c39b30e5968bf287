/**
 * The download of a signed link, from BotDojo's file storage without the API key. A broken or
 * hostile service could point a link (or a redirect) inside n8n's network: each address is checked.
 */
import type { IExecuteFunctions } from 'n8n-workflow';

import { REMOTE_HTTP } from '../../../credentials/BotDojoApi.credentials';

import { errorText, isCancel, nodeError, ReadFailure, saidByService } from './errors';
import { readCredentialOfRun } from './project';
import type { FullResponse } from './project';
import { beginWithin, headerOf, readWithin, retryWhileRateLimited } from './request';

const CANCELED = 'The download was canceled';

const MAX_REDIRECTS = 5; // a storage may redirect once or twice

/** The bounds of a file's download (README, "Limits"); tests lower them on this object. A file
 *  may be large and slow, so they follow its size: the record's `sizeBytes` plus a slack (a
 *  storage adds nothing), else `fileBytes` (1 GiB: larger than a document an AI flow reads, and
 *  what n8n's memory mode can still hold as base64), and a time of `baseMs` plus that size at
 *  `bytesPerSecond` (a slow but working link: 1 GiB in about 4.6 h). */
export const DOWNLOAD_LIMITS = {
	fileBytes: 1024 ** 3,
	slackBytes: 1024 * 1024,
	baseMs: 60_000,
	bytesPerSecond: 64 * 1024,
};

/** Downloads a signed link with no credential (its signature authorises it), following redirects
 *  hop by hop, each checked. `expiresAt` (epoch ms), the expiry asked for, tells an expired link. */
export async function downloadSignedUrl(
	ctx: IExecuteFunctions,
	url: string,
	expiresAt: number,
	{ itemIndex, sizeBytes }: { itemIndex?: number; sizeBytes?: unknown } = {},
) {
	const abortSignal = ctx.getExecutionCancelSignal();
	const { baseUrl, apiKey } = (await readCredentialOfRun(ctx)).fields;
	// A hostile storage may name the key in an address these messages quote (a Location): it is
	// redacted where the error leaves the node.
	const fail = (cause: object, message: string, description: string) =>
		nodeError(ctx, message, { description, itemIndex, cause });
	/** The link (or a redirect's target, relative to `from`) as a URL, refused unless it is safe,
	 *  with the one address it is fetched from (none at the credential's own local Base URL). */
	const checked = async (text: string, from?: URL) => {
		const link = urlOf(text, from);
		let problem = link ? linkProblem(link, baseUrl, from) : 'it is not a valid address';
		let address: string | undefined;
		if (link && !problem && !isOwnLocalAddress(link, baseUrl))
			({ address, problem } = await checkedAddress(ctx, link));
		if (link && !problem) return { link, address };
		const shown = link ? linkWithoutSignature(link) : `"${text.slice(0, 200)}"`;
		const description = `BotDojo's signed links are https addresses of its file storage. This one was refused so that it cannot read an address inside your network or a file of this machine; nothing was downloaded${from ? ` from ${linkWithoutSignature(from)}` : ''}. If the Base URL of the BotDojo API credential is right, report the link to BotDojo.`;
		throw nodeError(
			ctx,
			`The download link ${from ? 'redirected to ' : ''}${shown} was not fetched: ${problem}`,
			{ itemIndex, description },
		);
	};
	let { link, address } = await checked(url);
	const shownLink = linkWithoutSignature(link);
	for (let redirects = 0; ; redirects++) {
		const response = await retryWhileRateLimited({
			send: () =>
				beginWithin(
					async (signal) =>
						(await ctx.helpers.httpRequest({
							method: 'GET',
							...toAddress(link, address),
							encoding: 'stream',
							disableFollowRedirect: true,
							returnFullResponse: true,
							ignoreHttpStatusErrors: true,
							abortSignal: signal,
						})) as FullResponse,
					abortSignal,
				),
			abortSignal,
			networkError: (error) => {
				const code = (error as { code?: string })?.code ?? '';
				const raw = errorText(error);
				let message = `Could not download the file from ${shownLink}${code ? ` (${code})` : ''}`;
				if (isCancel(error)) message = CANCELED;
				else if (error instanceof ReadFailure) message = raw;
				return fail({ message: raw, code }, message, `${raw}.`);
			},
			refusal: ({ statusCode, body }) => {
				const said = saidByService(body, apiKey);
				const [message, advice] = refusalWords(statusCode, said, expiresAt);
				// The body quoted is redacted by fail(), where the error leaves the node.
				return fail(
					{ statusCode, body },
					message,
					`${said ? `The storage said: "${said}". ` : ''}${advice} Link: ${shownLink}.`.trim(),
				);
			},
		});
		if (response.statusCode < 300)
			return {
				data: boundedFile(response.body as AsyncIterable<Buffer>, sizeBytes, abortSignal),
				contentType: headerOf(response.headers, 'content-type'),
			};
		// A redirect's own body is not wanted: hang up rather than read it.
		(response.body as { destroy?: () => void } | undefined)?.destroy?.();
		const location = headerOf(response.headers, 'location');
		if (!location || redirects >= MAX_REDIRECTS) {
			const { statusCode } = response;
			const why = location ? `more than ${MAX_REDIRECTS} times` : 'without saying where to';
			throw fail(
				{ statusCode },
				`The download link redirected ${why} (${statusCode})`,
				`Nothing was downloaded. Get a new link. Link: ${shownLink}.`,
			);
		}
		({ link, address } = await checked(location, link));
	}
}

/** The file's chunks as they come (`readWithin`), refused past its byte bound or its time
 *  bound, or on Stop: n8n stores no part of a refused file. */
function boundedFile(body: AsyncIterable<Buffer>, sizeBytes: unknown, signal?: AbortSignal) {
	const given = typeof sizeBytes === 'number' && Number.isFinite(sizeBytes) && sizeBytes >= 0;
	const { fileBytes, slackBytes, baseMs, bytesPerSecond } = DOWNLOAD_LIMITS;
	const maxBytes = given ? sizeBytes + slackBytes : fileBytes;
	const totalMs = baseMs + Math.ceil((maxBytes / bytesPerSecond) * 1000);
	const bound = given
		? `the size BotDojo gave for the document, ${bytesWords(sizeBytes)}, plus ${bytesWords(slackBytes)}`
		: `the largest file downloaded when BotDojo gives no size`;
	const tooLate = `The file at the download link did not arrive within ${Math.round(totalMs / 1000).toLocaleString('en-US')} s and the download was ended; nothing was stored (the longest a file of up to ${bytesWords(maxBytes)} may take: ${baseMs / 1000} s plus 1 s per ${bytesWords(bytesPerSecond)}). Try again later, or ask BotDojo why its storage is this slow.`;
	return readWithin(body, {
		maxBytes,
		tooLarge: `The file at the download link is larger than ${bytesWords(maxBytes)} and was refused; nothing was stored (${bound}). Check the document in BotDojo.`,
		totalMs,
		tooLate,
		signal,
		canceled: CANCELED,
	}) as AsyncGenerator<Buffer>;
}

const bytesWords = (bytes: number) => `${bytes.toLocaleString('en-US')} bytes`;

/** The message of a download the storage refused, and what to do about it. */
function refusalWords(status: number, said: string | undefined, expiresAt: number) {
	const expired = Date.now() >= expiresAt || /expired/i.test(said ?? '');
	if (expired && [400, 401, 403, 410].includes(status)) {
		return [
			`The download link has expired (it was valid until ${new Date(expiresAt).toISOString()})`,
			'Ask for a link that lasts longer and download the file before then, e.g. in the same run.',
		];
	}
	if (status === 401 || status === 403) {
		return [
			`The download link was refused (${status})`,
			'Its signature does not match: the link may have been changed. Get a new link.',
		];
	}
	if (status === 404) {
		return [
			'The file behind the download link was not found (404)',
			'The document or its version may have been deleted. Get a new link.',
		];
	}
	return [`The file could not be downloaded: the link answered ${status}`, ''];
}

/** The one address `link` is fetched from, or why it is refused: its host name looked up once by
 *  n8n's egress filter, which checks every answer by n8n's SSRF rules ('enforced': even where they
 *  are off). The download connects there, never to what a second lookup says (DNS rebinding); an
 *  IPv4 answer first, as most n8n hosts reach IPv4. A name that cannot be looked up is refused. */
async function checkedAddress(ctx: IExecuteFunctions, link: URL) {
	const lookup = ctx.helpers.getSecureEgressFilter('enforced').createSecureLookup();
	const host = link.hostname.replace(/^\[|\]$/g, '');
	const answer = await new Promise<{ address?: string; error?: Error & { ip?: unknown } }>(
		(resolve) =>
			lookup(host, { all: true }, (error, addresses) => {
				const all = Array.isArray(addresses) ? addresses : [];
				const address = (all.find((a) => a.family === 4) ?? all[0])?.address;
				resolve(error || !address ? { error: error ?? undefined } : { address });
			}),
	);
	if (answer.address) return { address: answer.address };
	// n8n's SSRF errors name themselves (SsrfBlockedIpError, SsrfBlockedHostnameError).
	if (!answer.error?.name.startsWith('SsrfBlocked'))
		return {
			problem: `its host name ${link.hostname} could not be looked up, so n8n could not check where it leads`,
		};
	const { ip, message } = answer.error;
	return {
		problem: `it leads to an address n8n's SSRF rules block${typeof ip === 'string' && ip !== host ? ` (${ip})` : ''}: ${message}. An n8n administrator can allow it with N8N_SSRF_ALLOWED_HOSTNAMES or N8N_SSRF_ALLOWED_IP_RANGES`,
	};
}

/** The request's address: `link` itself, or `address` in its place with the host name kept for
 *  the server (Host) and for TLS (SNI and the certificate's name), so nothing looks it up again. */
function toAddress(link: URL, address?: string) {
	const host = link.hostname.replace(/^\[|\]$/g, '');
	if (!address || address === host) return { url: link.href };
	const url = new URL(link.href);
	url.hostname = address.includes(':') ? `[${address}]` : address;
	return { url: url.href, headers: { host: link.host }, agentOptions: { servername: host } };
}

/** Why `link` must not be fetched, as written. Only a local http Base URL (the emulator, a test
 *  setup) lets a link be http or local, at that origin only. A redirect must stay on its host. */
export function linkProblem(link: URL, baseUrl: string, from?: URL) {
	const own = isOwnLocalAddress(link, baseUrl);
	if (link.protocol !== 'https:' && link.protocol !== 'http:')
		return `it is a ${link.protocol.slice(0, -1)}: address, and only https addresses are downloaded`;
	if (isPrivateHost(link.hostname) && !own)
		return 'it points at this machine or a private network address';
	if (link.protocol === 'http:' && !own)
		return 'it is an http address, and only https addresses are downloaded (http only from a local Base URL, at that address)';
	if (from && link.host !== from.host)
		return `it redirects to another host (${link.host}) than the link's own (${from.host})`;
	return undefined;
}

/** Whether `link` is at the credential's own http Base URL (loopback: project.ts refuses others). */
function isOwnLocalAddress(link: URL, baseUrl: string) {
	const base = urlOf(baseUrl);
	return base?.protocol === 'http:' && !REMOTE_HTTP.test(base.href) && link.origin === base.origin;
}

/** The link without its query (the signature) or user info: enough to say where, nothing to reuse. */
function linkWithoutSignature(link: URL) {
	return `${link.protocol}//${link.protocol === 'file:' ? '' : link.host}${link.pathname}`;
}

const urlOf = (text: string, base?: URL) =>
	URL.canParse(text, base) ? new URL(text, base) : undefined;

/** IPv4 not on the public internet, in dotted decimal: 0/8, 10/8, 127/8, 224/4 (multicast) and
 *  240/4 (reserved, broadcast); 100.64/10 (carrier-grade NAT); 169.254/16 (link-local, cloud
 *  metadata); 172.16/12; 192.168/16, 192.0.0/24 (IETF) and 192.0.2/24; 198.18/15 (benchmarks)
 *  and 198.51.100/24; 203.0.113/24 (the last three /24: documentation). */
const PRIVATE_IPV4 =
	/^(0|10|127|22[4-9]|2[3-5]\d)\.|^100\.(6[4-9]|[7-9]\d|1[01]\d|12[0-7])\.|^169\.254\.|^172\.(1[6-9]|2\d|3[01])\.|^192\.(168|0\.[02])\.|^198\.(1[89]|51\.100)\.|^203\.0\.113\./;

/** IPv6 not on the public internet, as the URL parser writes it: ::/96 (unspecified, loopback,
 *  IPv4-compatible), ::ffff:0:0/96 (IPv4-mapped), ::ffff:0:0:0/96 (IPv4-translated), NAT64
 *  64:ff9b::/96 and 64:ff9b:1::/48, 6to4 2002::/16 (each holds an IPv4 address: none is a storage's),
 *  unique local fc00::/7, link-local and site-local fe80::/9, multicast ff00::/8. (n8n's default
 *  rules have ::1, fc00::/7, fe80::/10 and the IPv4-mapped forms of their IPv4 ranges only.) */
const PRIVATE_IPV6 =
	/^(::(ffff:(0:)?)?|64:ff9b::)([\da-f]{1,4}(:[\da-f]{1,4})?)?$|^(64:ff9b:1|2002):|^(f[cdf][\da-f]|fe[89a-f])[\da-f]:/;

/** Whether a host is this machine or a private, shared, reserved or multicast address, as written.
 *  The URL parser writes each address one way (127.1, 0x7f.0.0.1 and 2130706433 as 127.0.0.1; IPv6
 *  short and lower-case). A trailing dot names the same host; an unreadable IPv6 is refused. */
export function isPrivateHost(hostname: string) {
	const bare = hostname.replace(/^\[|\]$/g, '').replace(/\.+$/, '');
	const ipv6 = bare.includes(':');
	const host = urlOf(`http://${ipv6 ? `[${bare.replace(/%.*$/, '')}]` : bare}`)?.hostname;
	if (host === undefined) return ipv6 || bare === '';
	if (ipv6) return PRIVATE_IPV6.test(host.slice(1, -1));
	if (host === 'localhost' || host.endsWith('.localhost')) return true;
	return /^[\d.]+$/.test(host) && PRIVATE_IPV4.test(host);
}
