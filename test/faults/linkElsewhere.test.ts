/* eslint-disable @n8n/community-nodes/no-restricted-imports -- test code: runs in jest, never in n8n */
/**
 * docs/troubleshooting.md, Links elsewhere: BotDojo's signed download link, or a redirect
 * of it, points at another host over http, at an address inside the network (here a "secret"
 * server on another port of 127.0.0.1), or at a file of the machine. Nothing is fetched there,
 * the message names the link (never its signature), and the key is sent nowhere but BotDojo.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { FaultParams } from '../../emulator/types';
import { runNode } from '../helpers/engine';
import { useEmulator } from '../helpers/emulator';
import { flowRuns, statusesOf, whatUserSees } from '../helpers/faults';
import { captureLogs, keyShown } from '../helpers/keyLeaks';
import { linkNode, uploadThroughNode } from '../uploadDocument/documents';

const env = useEmulator();
const logs = captureLogs();

/** A server inside the network that must never be read: it counts what reaches it. */
let secret: Server;
let secretUrl = '';
let secretHits = 0;
beforeAll(async () => {
	secret = createServer((_req, res) => {
		secretHits++;
		res.end('the internal admin secret');
	});
	await new Promise<void>((resolve) => secret.listen(0, '127.0.0.1', resolve));
	secretUrl = `http://127.0.0.1:${(secret.address() as AddressInfo).port}/internal-admin/secret`;
});
afterAll(async () => await new Promise((resolve) => secret.close(resolve)));

interface Row {
	fault: string;
	/** The fault on the link (getTemporarySignedUrl) or on its download; `url` filled in later. */
	inject: { type: 'link-elsewhere' | 'redirect'; secret?: boolean } & FaultParams;
	/** The user's message, given the secret server's address. */
	message: (secretAddress: string) => RegExp;
	/** What the emulator's download endpoint answered. */
	downloads: number[];
}

const rows: Row[] = [
	{
		fault: 'link to another host over http',
		inject: { type: 'link-elsewhere', to: 'host' },
		message: () =>
			/^The download link http:\/\/files\.example\.invalid\/signed\/doc_\w+ was not fetched: it is an http address/,
		downloads: [],
	},
	{
		fault: 'link to 127.0.0.1 on another port',
		inject: { type: 'link-elsewhere', secret: true },
		message: (at) =>
			new RegExp(
				`^The download link ${at} was not fetched: it points at this machine or a private network address`,
			),
		downloads: [],
	},
	{
		fault: 'link to a private address over https',
		inject: { type: 'link-elsewhere', url: 'https://10.0.0.7/files/a.txt?sig=s3cr3t' },
		message: () =>
			/^The download link https:\/\/10\.0\.0\.7\/files\/a\.txt was not fetched: it points at/,
		downloads: [],
	},
	{
		fault: 'link to file://',
		inject: { type: 'link-elsewhere', to: 'file' },
		message: () =>
			/^The download link file:\/\/\/etc\/passwd was not fetched: it is a file: address, and only https addresses are downloaded/,
		downloads: [],
	},
	{
		fault: 'redirect (301) to 127.0.0.1 on another port',
		inject: { type: 'redirect', status: 301, secret: true },
		message: (at) =>
			new RegExp(
				`^The download link redirected to ${at} was not fetched: it points at this machine`,
			),
		downloads: [301],
	},
	{
		fault: 'redirect (302) to another host',
		inject: { type: 'redirect', status: 302, to: 'host' },
		message: () =>
			/^The download link redirected to http:\/\/files\.example\.invalid\/signed\/doc_\w+ was not fetched/,
		downloads: [302],
	},
	{
		fault: 'redirect (307) to file://',
		inject: { type: 'redirect', status: 307, to: 'file' },
		message: () => /^The download link redirected to file:\/\/\/etc\/passwd was not fetched/,
		downloads: [307],
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

describe('What happens when… a download link leads elsewhere', () => {
	it.each(rows)('$fault', async (row) => {
		const { type, secret: toSecret, ...params } = row.inject;
		const endpoint = type === 'redirect' ? 'download' : 'getTemporarySignedUrl';
		env.emu.injectFault({ type, ...params, ...(toSecret ? { url: secretUrl } : {}) }, { endpoint });
		const hitsBefore = secretHits;
		const result = await getLinkAndFile();
		expect(result.error?.message).toMatch(row.message(secretUrl.replace(/\//g, '\\/')));
		const seen = whatUserSees(result);
		expect(seen).toMatch(/Nothing was downloaded|nothing was downloaded/);
		expect(seen).not.toMatch(/sig=|s3cr3t/);
		expect(secretHits).toBe(hitsBefore);
		expect(statusesOf(env, 'download')).toEqual(row.downloads);
		for (const download of env.emu.requestsTo('download')) {
			expect(download.headers.authorization).toBeUndefined();
		}
		expect(keyShown(result, logs, env.emu.keys.project)).toEqual([]);
		expect(flowRuns(env)).toBe(0);
	});

	it('follows a redirect on the same host, and streams the file into the binary', async () => {
		env.emu.injectFault({ type: 'redirect', status: 302, to: 'self' }, { endpoint: 'download' });
		const result = await getLinkAndFile();
		expect(result.error).toBeUndefined();
		expect(statusesOf(env, 'download')).toEqual([302, 200]);
		const binary = result.items[0].binary?.data;
		expect(Buffer.from(binary?.data ?? '', 'base64').toString()).toBe('hello');
		expect(env.emu.requestsTo('download').map((r) => r.headers.authorization)).toEqual([
			undefined,
			undefined,
		]);
	});
});
