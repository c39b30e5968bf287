/**
 * Where a signed download link may lead. The link comes from BotDojo's answer, so a broken or
 * hostile service (or a proxy) could point it, or a redirect, at a private address inside the
 * network that n8n runs in: every address is checked before it is fetched.
 */
import { isPrivateHost, REMOTE_HTTP } from './hosts';

/** The most redirects followed for one download (a storage may redirect once or twice). */
export const MAX_REDIRECTS = 5;

/**
 * Why `link` must not be fetched, or undefined when it may. `baseUrl` is the credential's:
 * only when it is itself a local http address (the emulator, a local test setup) may a link be
 * http or local, and then only to that same address. `from` is the link that redirected here:
 * a redirect must stay on its host.
 */
export function linkProblem(link: URL, baseUrl: string, from?: URL): string | undefined {
	if (link.protocol !== 'https:' && link.protocol !== 'http:') {
		return `it is a ${link.protocol.replace(/:$/, '')}: address, and only https addresses are downloaded`;
	}
	let base: URL | undefined;
	try {
		base = new URL(baseUrl);
	} catch {
		base = undefined;
	}
	// The credential's own http address is loopback (project.ts refuses http for other hosts).
	const ownLocalAddress =
		!!base &&
		base.protocol === 'http:' &&
		!REMOTE_HTTP.test(base.href) &&
		link.origin === base.origin;
	if (isPrivateHost(link.hostname) && !ownLocalAddress) {
		return 'it points at this machine or a private network address';
	}
	if (link.protocol === 'http:' && !ownLocalAddress) {
		return 'it is an http address, and only https addresses are downloaded (http only from a local Base URL, at that address)';
	}
	if (from && link.host !== from.host) {
		return `it redirects to another host (${link.host}) than the link's own (${from.host})`;
	}
	return undefined;
}

/** The link without its query (the signature) or user info: enough to say where, nothing to reuse. */
export function linkWithoutSignature(url: string | URL): string {
	try {
		const parsed = typeof url === 'string' ? new URL(url) : url;
		if (parsed.protocol === 'file:') return `file://${parsed.pathname}`;
		return `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
	} catch {
		return 'the download link';
	}
}
