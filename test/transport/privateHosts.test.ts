/**
 * The addresses a signed link may not lead to, as written (download.ts): the ranges n8n's own
 * SSRF rules leave out (multicast, broadcast, IPv4 inside IPv6: compatible, mapped, translated,
 * NAT64 and 6to4; site-local), the rest of
 * n8n's default list, and a trailing dot. These checks run on every n8n; where n8n offers its
 * egress filter, it runs beside them (test/faults/linkElsewhereEgress.test.ts).
 */
import { isPrivateHost, linkProblem } from '../../nodes/shared/transport/download';

/** As the node sees them: the host name of a parsed link (URL writes IPv6 in hex). */
const hostOf = (link: string) => new URL(link).hostname;

describe('isPrivateHost, the ranges added for issue 26', () => {
	it.each([
		['https://198.18.0.1/', true],
		['https://198.19.255.255/', true],
		['https://198.20.0.1/', false],
		['https://192.0.0.8/', true],
		['https://192.0.1.1/', false],
		['https://192.0.2.1/', true],
		['https://198.51.100.7/', true],
		['https://203.0.113.7/', true],
		['https://224.0.0.1/', true],
		['https://239.255.255.250/', true],
		['https://240.0.0.1/', true],
		['https://255.255.255.255/', true],
		['https://223.255.255.255/', false],
		['https://[::127.0.0.1]/', true],
		['https://[::10.0.0.1]/', true],
		['https://[::ffff:8.8.8.8]/', true],
		['https://[64:ff9b::127.0.0.1]/', true],
		['https://[64:ff9b::8.8.8.8]/', true],
		['https://[64:ff9b:1::a00:1]/', true],
		['https://[::ffff:0:7f00:1]/', true],
		['https://[::ffff:0:10.0.0.1]/', true],
		['https://[::ffff:0:0:1]/', true],
		['https://[2002:7f00:1::1]/', true],
		['https://[2002:808:808::1]/', true],
		['https://[2003::1]/', false],
		['https://[fec0::1]/', true],
		['https://[feff::1]/', true],
		['https://[ff02::1]/', true],
		['https://[2001:4860:4860::8888]/', false],
		['https://localhost./', true],
		['https://api.localhost./', true],
		['https://127.0.0.1./', true],
		['https://storage.googleapis.com./', false],
	])('%s → %s', (link, expected) => {
		expect(isPrivateHost(hostOf(link))).toBe(expected);
	});

	it('an IPv6 address that cannot be read is refused', () => {
		expect(isPrivateHost('[1:2:3:4:5:6:7:8:9]')).toBe(true);
		expect(isPrivateHost('[::g]')).toBe(true);
	});
});

describe('linkProblem, a trailing dot', () => {
	const local = 'http://localhost:3939/api/v1';
	it.each([
		['https://localhost.:8443/f?sig=1', 'https://api.botdojo.com/api/v1'],
		['http://localhost.:3939/signed/x', local],
		['http://127.0.0.1.:3940/signed/x', 'http://127.0.0.1:3939/api/v1'],
	])('%s is refused (Base URL %s)', (link, base) => {
		expect(linkProblem(new URL(link), base)).toMatch(
			/this machine or a private network|http address/,
		);
	});
});
