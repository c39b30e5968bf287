/* eslint-disable @n8n/community-nodes/no-restricted-imports -- test code: runs in jest, never in n8n */
/**
 * README "What happens when…", Links elsewhere, DNS rebinding: the signed link's host name answers
 * a public address when n8n's egress filter looks it up, and 127.0.0.1 when it is looked up again.
 * The download connects to the address that was checked, once looked up: the server inside the
 * network gets no connection. (Nothing leaves this machine: the scene's guard refuses the public
 * address and records the attempt.)
 */
import dns from 'node:dns';

import { whatUserSees } from '../helpers/faults';
import {
	expectNothingFetched,
	getThroughLink,
	secretLink,
	useLinkScene,
} from '../helpers/internalServer';

const seen = useLinkScene();
const { internal } = seen;

const REBINDING_NAME = 'files.rebinding.example';
const PUBLIC_ADDRESS = '93.184.215.14';

/** The rebinding name server: each lookup of REBINDING_NAME (by any of Node's lookups) gets the
 *  next answer, the public address first and 127.0.0.1 after; other names are looked up as usual. */
const lookups: string[] = [];
function answerFor(hostname: string): string | undefined {
	if (hostname !== REBINDING_NAME) return undefined;
	lookups.push(hostname);
	return lookups.length === 1 ? PUBLIC_ADDRESS : '127.0.0.1';
}

beforeAll(() => {
	const lookupPromise = dns.promises.lookup.bind(dns.promises);
	jest.spyOn(dns.promises, 'lookup').mockImplementation((async (
		hostname: string,
		options?: { all?: boolean },
	) => {
		const address = answerFor(hostname);
		if (address === undefined) return await lookupPromise(hostname, options ?? {});
		return options?.all ? [{ address, family: 4 }] : { address, family: 4 };
	}) as typeof dns.promises.lookup);
	const lookup = dns.lookup.bind(dns) as (...args: unknown[]) => void;
	jest.spyOn(dns, 'lookup').mockImplementation(((...args: unknown[]) => {
		const [hostname, options] = args as [string, { all?: boolean } | undefined];
		const address = answerFor(hostname);
		if (address === undefined) return lookup(...args);
		const done = args[args.length - 1] as (...answer: unknown[]) => void;
		const answer = options?.all ? [[{ address, family: 4 }]] : [address, 4];
		queueMicrotask(() => done(null, ...answer));
	}) as unknown as typeof dns.lookup);
});
afterAll(() => jest.restoreAllMocks());

it('a host name that answers a public address, then 127.0.0.1: the download goes to the checked address', async () => {
	const { result, connectionsBefore } = await getThroughLink(
		secretLink(REBINDING_NAME, internal.port),
		seen,
	);
	// The checked address refused the connection (the guard), and n8n words it.
	expect(whatUserSees(result)).toMatch(
		/^The service refused the connection[\s\S]*93\.184\.215\.14/,
	);
	expectNothingFetched(result, seen, connectionsBefore);
	expect(seen.outside).toEqual([`${PUBLIC_ADDRESS}:${internal.port}`]);
	expect(lookups).toEqual([REBINDING_NAME]);
});
