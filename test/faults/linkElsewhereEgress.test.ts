/**
 * docs/troubleshooting.md, Links elsewhere, checked with n8n's egress filter
 * (`helpers.getSecureEgressFilter`): a signed link, or a redirect of it, whose host name resolves
 * to this machine is refused before anything connects, under n8n's 'enforced' policy (SSRF
 * protection is off in this process, as in a default n8n). The literal checks still run beside
 * the filter, for the ranges its default rules let through.
 */
import type { FaultParams } from '../../emulator/types';
import { whatUserSees } from '../helpers/faults';
import {
	expectNothingFetched,
	getLinkAndFile,
	getThroughLink,
	nameOfLoopback,
	secretLink,
	useLinkScene,
} from '../helpers/internalServer';

const seen = useLinkScene();
const { env, logs, internal } = seen;

interface Row {
	fault: string;
	/** The fault on the link (getTemporarySignedUrl), given the server's port and name. */
	inject: (port: number, name: string) => { type: 'link-elsewhere' } & FaultParams;
	/** The user's message. */
	message: (port: number, name: string) => RegExp;
}

const rows: Row[] = [
	{
		fault: 'link to a host name that resolves to 127.0.0.1 (n8n resolves it)',
		inject: (port, name) => secretLink(name, port),
		message: (port, name) =>
			new RegExp(
				`^The download link https://${name}:${port}/internal-admin/secret was not fetched: it leads to an address n8n's SSRF rules block \\(127\\.0\\.0\\.1\\)`,
			),
	},
	...[
		'localhost.',
		'[::127.0.0.1]',
		'[::ffff:0:7f00:1]',
		'[64:ff9b::127.0.0.1]',
		'[2002:7f00:1::1]',
		'255.255.255.255',
		'[fec0::1]',
	].map(
		(host): Row => ({
			fault: `link to ${host}, which n8n's default rules let through or cannot resolve`,
			inject: (port) => secretLink(host, port),
			message: () => /was not fetched: it points at this machine or a private network address/,
		}),
	),
	{
		fault: 'link to a host name that cannot be looked up',
		inject: () => ({
			type: 'link-elsewhere',
			url: 'https://files.example.invalid/a.txt?sig=s3cr3t',
		}),
		message: () =>
			/^The download link https:\/\/files\.example\.invalid\/a\.txt was not fetched: its host name files\.example\.invalid could not be looked up, so n8n could not check where it leads/,
	},
];

describe("What happens when… a download link leads elsewhere (n8n's egress filter)", () => {
	it.each(rows)('$fault', async (row) => {
		const name = await nameOfLoopback();
		const { result, connectionsBefore } = await getThroughLink(
			row.inject(internal.port, name),
			seen,
		);
		expect(result.error?.message).toMatch(row.message(internal.port, name));
		expect(whatUserSees(result)).toMatch(/nothing was downloaded/);
		expectNothingFetched(result, seen, connectionsBefore);
	});

	it("the emulator's own local link is still downloaded (the filter is not asked about it)", async () => {
		const result = await getLinkAndFile(env, logs);
		expect(result.error).toBeUndefined();
		expect(Buffer.from(result.items[0].binary?.data.data ?? '', 'base64').toString()).toBe('hello');
	});
});
