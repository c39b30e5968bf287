/**
 * docs/troubleshooting.md, Links: a signed download link that expired before the file could
 * be downloaded. No flow runs here; the user is told the link expired, never shown its signature.
 */
import { runNode } from '../helpers/engine';
import { useEmulator } from '../helpers/emulator';
import { flowRuns, statusesOf, whatUserSees } from '../helpers/faults';
import { linkNode, uploadThroughNode } from '../uploadDocument/documents';

const env = useEmulator();

const rows = [
	{
		fault: 'expired link (the storage asked to wait past its expiry)',
		// The storage turns the first download away (503, retry after 2 s); the link, valid for
		// 1.5 s, has expired when the node tries again.
		arm: () => env.emu.injectFault('503', { endpoint: 'download', retryAfter: 2 }),
		validForMs: 1500,
		sees: [/Request has expired/],
		downloads: [503, 403],
	},
];

describe('What happens when… a download link has expired', () => {
	it.each(rows)('$fault', async (row) => {
		await uploadThroughNode(env, Buffer.from('late'), 'docs/late.txt', 'late.txt', 'text/plain');
		row.arm();
		const expiresAt = new Date(Date.now() + row.validForMs).toISOString();
		const result = await runNode({
			node: linkNode({
				logicalPath: 'docs/late.txt',
				expiresMode: 'date',
				expiresAt,
				downloadFile: true,
			}),
			credentials: env.credentials,
		});
		expect(result.error?.message).toBe(
			`The download link has expired (it was valid until ${expiresAt})`,
		);
		const seen = whatUserSees(result);
		for (const phrase of row.sees) expect(seen).toMatch(phrase);
		expect(seen).not.toMatch(/sig=/);
		expect(statusesOf(env, 'download')).toEqual(row.downloads);
		expect(flowRuns(env)).toBe(0);
	});
});
