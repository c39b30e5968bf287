/**
 * Where a signed download link may lead. The link comes from BotDojo's answer, so a broken or
 * hostile service (or a proxy) could point it, or a redirect, at a private address inside the
 * network that n8n runs in: every address is checked before it is fetched.
 */

/** The most redirects followed for one download (a storage may redirect once or twice). */
export const MAX_REDIRECTS = 5;

/** Whether a host name is this machine or a private, link-local or shared network address. */
export function isPrivateHost(hostname: string): boolean {
	const host = hostname.toLowerCase().replace(/^\[|\]$/g, '');
	if (host === 'localhost' || host.endsWith('.localhost') || host === '') return true;
	const ipv4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host.replace(/^::ffff:/, ''));
	if (ipv4) {
		const [a, b] = [Number(ipv4[1]), Number(ipv4[2])];
		return (
			a === 0 ||
			a === 10 ||
			a === 127 ||
			(a === 100 && b >= 64 && b <= 127) ||
			(a === 169 && b === 254) ||
			(a === 172 && b >= 16 && b <= 31) ||
			(a === 192 && b === 168)
		);
	}
	if (!host.includes(':')) return false;
	// IPv6: unspecified, loopback, unique local (fc00::/7), link-local (fe80::/10), IPv4-mapped.
	return (
		host === '::' ||
		host === '::1' ||
		/^f[cd][0-9a-f]{0,2}:/.test(host) ||
		/^fe[89ab][0-9a-f]?:/.test(host) ||
		host.startsWith('::ffff:')
	);
}

function isLoopbackHttp(url: URL): boolean {
	return url.protocol === 'http:' && isPrivateHost(url.hostname);
}

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
	const ownLocalAddress = !!base && isLoopbackHttp(base) && link.origin === base.origin;
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
