/**
 * Which hosts are this machine or a private network, in one place: for the Base URL (http://
 * only to this computer) and for the download links BotDojo hands out (signedLink.ts).
 */

/**
 * A Base URL that would send the API key unencrypted to another machine: http:// to any host
 * but this computer's loopback (localhost, 127.0.0.0/8, [::1]). Anything after the host but a
 * port, path, query or fragment (e.g. `http://127.0.0.1@example.com`) counts as remote. A regular
 * expression, not URL parsing, because the credential's declarative Test request (an n8n
 * expression, which cannot import code) checks the same thing with it.
 */
export const REMOTE_HTTP =
	/^http:\/\/(?!(?:localhost|127(?:\.\d{1,3}){3}|\[::1\])(?::\d+)?(?:[/?#]|$))/i;

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
