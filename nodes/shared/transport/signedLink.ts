/**
 * Where a signed download link may lead. The link comes from BotDojo's answer, so a broken or
 * hostile service (or a proxy) could point it, or a redirect, at a private address inside the
 * network that n8n runs in: every address is checked before it is fetched. Two checks:
 * linkProblem reads the address as written (every n8n version); where the running n8n offers
 * its egress filter (`helpers.getSecureEgressFilter`), checkSignedLink also has n8n resolve
 * the host name and check every address it resolves to against n8n's SSRF rules.
 */
import type { IExecuteFunctions } from 'n8n-workflow';

import { isPrivateHost } from './hosts';
import { REMOTE_HTTP } from './project';

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
	const ownLocalAddress = isOwnLocalAddress(link, baseUrl);
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

/** Whether `link` is at the credential's own http Base URL, which is loopback (project.ts
 *  refuses http for other hosts): the emulator or a local test setup. */
function isOwnLocalAddress(link: URL, baseUrl: string): boolean {
	let base: URL | undefined;
	try {
		base = new URL(baseUrl);
	} catch {
		return false;
	}
	return base.protocol === 'http:' && !REMOTE_HTTP.test(base.href) && link.origin === base.origin;
}

type EgressFilter = ReturnType<IExecuteFunctions['helpers']['getSecureEgressFilter']>;

/** n8n's egress filter under the 'enforced' policy (n8n's SSRF rules even where the instance
 *  has SSRF protection off), or undefined on an n8n that does not offer it. */
function enforcedEgressFilter(ctx: IExecuteFunctions): EgressFilter | undefined {
	const helpers: Partial<IExecuteFunctions['helpers']> = ctx.helpers;
	if (typeof helpers.getSecureEgressFilter !== 'function') return undefined;
	return helpers.getSecureEgressFilter('enforced');
}

/**
 * Why `link` must not be fetched, or undefined when it may: linkProblem's checks, then, where
 * the running n8n offers it, n8n's egress filter, which resolves the host name and checks every
 * address (a name that resolves to 127.0.0.1 is refused; an admin may allow a host with
 * N8N_SSRF_ALLOWED_HOSTNAMES or N8N_SSRF_ALLOWED_IP_RANGES). A name that cannot be looked up is
 * refused too: its download could only fail, or reach an address that was never checked.
 * Not for API requests: the filter refuses private addresses, where a BotDojo may be reached.
 */
export async function checkSignedLink(
	ctx: IExecuteFunctions,
	link: URL,
	baseUrl: string,
	from?: URL,
): Promise<string | undefined> {
	const problem = linkProblem(link, baseUrl, from);
	if (problem || isOwnLocalAddress(link, baseUrl)) return problem;
	const filter = enforcedEgressFilter(ctx);
	if (!filter) return undefined;
	let verdict: Awaited<ReturnType<EgressFilter['validateUrl']>>;
	try {
		verdict = await filter.validateUrl(link);
	} catch {
		return `its host name ${link.hostname} could not be looked up, so n8n could not check where it leads`;
	}
	if (verdict.ok) return undefined;
	const ip = (verdict.error as { ip?: unknown }).ip;
	const where =
		typeof ip === 'string' && ip !== link.hostname.replace(/^\[|\]$/g, '') ? ` (${ip})` : '';
	return `it leads to an address n8n's SSRF rules block${where}: ${verdict.error.message}. An n8n administrator can allow it with N8N_SSRF_ALLOWED_HOSTNAMES or N8N_SSRF_ALLOWED_IP_RANGES`;
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
