/**
 * README "What happens when…", Links elsewhere, checked with n8n's egress filter: on an n8n that
 * offers `helpers.getSecureEgressFilter` (n8n-core 2.41 here), a signed link, or a redirect of
 * it, whose host name resolves to this machine is refused before anything connects, under
 * n8n's 'enforced' policy (SSRF protection is off in this process, as in a default n8n). The
 * literal checks still run beside the filter, for the ranges its default rules let through.
 * The same rows on an n8n without the filter: linkElsewhereOlderN8n.test.ts.
 */
import type { FaultParams } from '../../emulator/types';
import { runNode } from '../helpers/engine';
import { useEmulator } from '../helpers/emulator';
import { flowRuns, statusesOf, whatUserSees } from '../helpers/faults';
import { nameOfLoopback, useInternalServer } from '../helpers/internalServer';
import { captureLogs, keyShown } from '../helpers/keyLeaks';
import { linkNode, uploadThroughNode } from '../uploadDocument/documents';

const env = useEmulator();
const logs = captureLogs();
const internal = useInternalServer();

interface Row {
	fault: string;
	/** The fault on the link (getTemporarySignedUrl) or on its download, given the server's port. */
	inject: (port: number, name: string) => { type: 'link-elsewhere' | 'redirect' } & FaultParams;
	/** The user's message. */
	message: (port: number, name: string) => RegExp;
	downloads: number[];
}

const rows: Row[] = [
	{
		fault: 'link to a host name that resolves to 127.0.0.1 (n8n resolves it)',
		inject: (port, name) => ({
			type: 'link-elsewhere',
			url: `https://${name}:${port}/internal-admin/secret?sig=s3cr3t`,
		}),
		message: (port, name) =>
			new RegExp(
				`^The download link https://${name}:${port}/internal-admin/secret was not fetched: it leads to an address n8n's SSRF rules block \\(127\\.0\\.0\\.1\\)`,
			),
		downloads: [],
	},
	...['localhost.', '[::127.0.0.1]', '[64:ff9b::127.0.0.1]', '255.255.255.255', '[fec0::1]'].map(
		(host): Row => ({
			fault: `link to ${host}, which n8n's default rules let through or cannot resolve`,
			inject: (port) => ({
				type: 'link-elsewhere',
				url: `https://${host}:${port}/internal-admin/secret?sig=s3cr3t`,
			}),
			message: () => /was not fetched: it points at this machine or a private network address/,
			downloads: [],
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
		downloads: [],
	},
];

async function getLinkAndFile() {
	await uploadThroughNode(env, Buffer.from('hello'), 'docs/a.txt', 'a.txt', 'text/plain');
	logs.length = 0;
	return await runNode({
		node: linkNode({ logicalPath: 'docs/a.txt', downloadFile: true }),
		credentials: env.credentials,
	});
}

describe("What happens when… a download link leads elsewhere (n8n's egress filter)", () => {
	it.each(rows)('$fault', async (row) => {
		const name = await nameOfLoopback();
		const { type, ...params } = row.inject(internal.port, name);
		const endpoint = type === 'redirect' ? 'download' : 'getTemporarySignedUrl';
		env.emu.injectFault({ type, ...params }, { endpoint });
		const connectionsBefore = internal.connections;
		const result = await getLinkAndFile();
		expect(result.error?.message).toMatch(row.message(internal.port, name));
		const seen = whatUserSees(result);
		expect(seen).toMatch(/nothing was downloaded/);
		expect(seen).not.toMatch(/sig=|s3cr3t/);
		// Nothing connected to the server inside the network.
		expect(internal.connections).toBe(connectionsBefore);
		expect(statusesOf(env, 'download')).toEqual(row.downloads);
		expect(keyShown(result, logs, env.emu.keys.project)).toEqual([]);
		expect(flowRuns(env)).toBe(0);
	});

	it("the emulator's own local link is still downloaded (the filter is not asked about it)", async () => {
		const result = await getLinkAndFile();
		expect(result.error).toBeUndefined();
		expect(Buffer.from(result.items[0].binary?.data.data ?? '', 'base64').toString()).toBe('hello');
	});
});
