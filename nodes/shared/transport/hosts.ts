/**
 * Which hosts are this machine or a private network, in one place: for the Base URL (http://
 * only to this computer) and for the download links BotDojo hands out (signedLink.ts).
 */

/** IPv4 ranges (first address, prefix length) that are not the public internet. */
const PRIVATE_IPV4: ReadonlyArray<readonly [string, number]> = [
	['0.0.0.0', 8], // "this network"
	['10.0.0.0', 8],
	['100.64.0.0', 10], // shared address space (carrier-grade NAT)
	['127.0.0.0', 8],
	['169.254.0.0', 16], // link-local, cloud metadata
	['172.16.0.0', 12],
	['192.0.0.0', 24], // IETF protocol assignments
	['192.0.2.0', 24], // documentation
	['192.168.0.0', 16],
	['198.18.0.0', 15], // benchmarking
	['198.51.100.0', 24], // documentation
	['203.0.113.0', 24], // documentation
	['224.0.0.0', 4], // multicast
	['240.0.0.0', 4], // reserved, and the broadcast address 255.255.255.255
];

function ipv4Number(text: string): number | undefined {
	const parts = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
	if (!parts) return undefined;
	const bytes = parts.slice(1).map(Number);
	if (bytes.some((byte) => byte > 255)) return undefined;
	return bytes.reduce((sum, byte) => sum * 256 + byte, 0);
}

function isPrivateIpv4(address: number): boolean {
	return PRIVATE_IPV4.some(([first, bits]) => {
		const size = 2 ** (32 - bits);
		const start = ipv4Number(first) ?? 0;
		return address >= start && address < start + size;
	});
}

/** The 8 groups of an IPv6 address (`::` expanded, a trailing dotted IPv4 as 2 groups). */
function ipv6Groups(text: string): number[] | undefined {
	let host = text;
	const dotted = /^(.*:)(\d{1,3}(?:\.\d{1,3}){3})$/.exec(host);
	if (dotted) {
		const v4 = ipv4Number(dotted[2]);
		if (v4 === undefined) return undefined;
		host = `${dotted[1]}${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`;
	}
	const halves = host.split('::');
	if (halves.length > 2) return undefined;
	const groupsOf = (half: string) => (half === '' ? [] : half.split(':'));
	const head = groupsOf(halves[0]);
	const tail = halves.length === 2 ? groupsOf(halves[1]) : [];
	const missing = 8 - head.length - tail.length;
	if (missing < 0 || (halves.length === 1 && missing !== 0)) return undefined;
	const groups = [...head, ...new Array<string>(missing).fill('0'), ...tail];
	if (groups.some((group) => !/^[0-9a-f]{1,4}$/.test(group))) return undefined;
	return groups.map((group) => parseInt(group, 16));
}

/**
 * Whether an IPv6 address is not the public internet: unspecified, loopback, an IPv4 address
 * inside it (mapped `::ffff:a.b.c.d`, compatible `::a.b.c.d`, NAT64 `64:ff9b::/96` and
 * `64:ff9b:1::/48`), unique local (fc00::/7), link-local (fe80::/10), site-local
 * (fec0::/10) or multicast (ff00::/8).
 */
function isPrivateIpv6(groups: readonly number[]): boolean {
	const [g0, g1, g2, g3, g4, g5] = groups;
	const upperZero = g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0;
	if (upperZero && (g5 === 0 || g5 === 0xffff)) return true; // ::, ::1, ::a.b.c.d, ::ffff:…
	if (g0 === 0x64 && g1 === 0xff9b && (g2 === 1 || (g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0)))
		return true;
	return (
		(g0 & 0xfe00) === 0xfc00 ||
		(g0 & 0xffc0) === 0xfe80 ||
		(g0 & 0xffc0) === 0xfec0 ||
		(g0 & 0xff00) === 0xff00
	);
}

/**
 * Whether a host name is this machine or a private, shared, reserved or multicast address, as
 * written: a name is not looked up here (n8n's egress filter does that, see signedLink.ts).
 * A trailing dot (`localhost.`) names the same host.
 */
export function isPrivateHost(hostname: string): boolean {
	const host = hostname
		.toLowerCase()
		.replace(/^\[|\]$/g, '')
		.replace(/\.+$/, '');
	if (host === 'localhost' || host.endsWith('.localhost') || host === '') return true;
	const ipv4 = ipv4Number(host);
	if (ipv4 !== undefined) return isPrivateIpv4(ipv4);
	if (!host.includes(':')) return false;
	const groups = ipv6Groups(host.replace(/%.*$/, ''));
	// An address that cannot be read is not fetched.
	return groups === undefined || isPrivateIpv6(groups);
}
