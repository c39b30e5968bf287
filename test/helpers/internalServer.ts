/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals -- test code: runs in jest, never in n8n */
/**
 * A server inside the network that a download link must never reach: it counts every TCP
 * connection (a TLS handshake to it counts too, though it speaks plain HTTP), and a host name
 * of this machine that resolves to it, to check what n8n's egress filter sees.
 */
import { lookup } from 'node:dns/promises';
import { createServer, type Server } from 'node:http';
import { isIP, Socket, type AddressInfo } from 'node:net';
import { hostname } from 'node:os';

import type { FaultParams } from '../../emulator/types';
import { isPrivateHost } from '../../nodes/shared/transport/download';
import { linkNode, uploadThroughNode } from '../uploadDocument/documents';
import { useEmulator, type EmulatorFixture } from './emulator';
import { runNode, type BotDojoCredentialData, type RunResult } from './engine';
import { flowRuns, statusesOf, whatUserSees } from './faults';
import { captureLogs, keyShown } from './keyLeaks';

export interface InternalServer {
	port: number;
	/** TCP connections it accepted so far. */
	connections: number;
}

/** Registers beforeAll/afterAll hooks; the fixture is filled in beforeAll. */
export function useInternalServer(): InternalServer {
	const fixture: InternalServer = { port: 0, connections: 0 };
	let server: Server;
	beforeAll(async () => {
		server = createServer((_req, res) => res.end('the internal admin secret'));
		server.on('connection', () => fixture.connections++);
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		fixture.port = (server.address() as AddressInfo).port;
	});
	afterAll(async () => await new Promise((resolve) => server.close(resolve)));
	return fixture;
}

/** The emulator's fault: a signed link to the internal server's secret at `host`, signature and all. */
export function secretLink(host: string, port: number) {
	return {
		type: 'link-elsewhere' as const,
		url: `https://${host}:${port}/internal-admin/secret?sig=s3cr3t`,
	};
}

/** What a link-elsewhere test file sets up and reads: the emulator, n8n's log, the internal server,
 *  and the connections refused outside this machine. */
export interface LinkScene {
	env: EmulatorFixture;
	logs: string[];
	internal: InternalServer;
	/** `address:port` of each connection the node tried to an address outside this machine. */
	outside: string[];
}

/** Registers the emulator, the log capture, the internal server and the outside guard, in that order. */
export function useLinkScene(): LinkScene {
	const scene = { env: useEmulator(), logs: captureLogs(), internal: useInternalServer() };
	return { ...scene, outside: refuseOutsideConnections() };
}

/**
 * While the file's tests run, a connection to an IP address other than loopback is refused here,
 * as "connection refused", before any packet leaves (these tests hand the node hostile addresses;
 * this machine reaches no network). Returns the list of what was refused, `address:port`.
 */
function refuseOutsideConnections(): string[] {
	const refused: string[] = [];
	const connect = Socket.prototype.connect;
	beforeAll(() => {
		Socket.prototype.connect = function (this: Socket, ...args: unknown[]) {
			const options = args[0] as { host?: unknown; port?: unknown } | undefined;
			const host = typeof options?.host === 'string' ? options.host.replace(/^\[|\]$/g, '') : '';
			if (isIP(host) && !/^127\.|^::1$/.test(host)) {
				refused.push(`${host}:${String(options?.port)}`);
				const error = Object.assign(new Error(`connect ECONNREFUSED ${host}`), {
					code: 'ECONNREFUSED',
				});
				process.nextTick(() => this.destroy(error));
				return this;
			}
			return connect.apply(this, args as Parameters<Socket['connect']>);
		} as Socket['connect'];
	});
	afterAll(() => {
		Socket.prototype.connect = connect;
	});
	return refused;
}

/**
 * A host name that this machine resolves to 127.0.0.1 and that the literal checks cannot see
 * through (not `localhost`): the machine's own name, or another name of its hosts file.
 * Throws, failing the test, when there is none.
 */
export async function nameOfLoopback(): Promise<string> {
	for (const name of [hostname(), 'runsc', 'vm', 'localhost.localdomain']) {
		if (isPrivateHost(name)) continue;
		const addresses = await lookup(name, { all: true }).catch(() => []);
		if (addresses.length > 0 && addresses.every((a) => a.address === '127.0.0.1')) return name;
	}
	throw new Error('No host name of this machine resolves to 127.0.0.1 only: add one to /etc/hosts');
}

/**
 * n8n's SSRF settings, as an admin sets them: read by n8n's configuration when its HTTP client is
 * first built (the first request of the test file), so call it at the top of the file.
 */
export function setSsrfSettings(settings: { enabled: boolean; allowedHostnames: string }): void {
	process.env.N8N_SSRF_PROTECTION_ENABLED = String(settings.enabled);
	process.env.N8N_SSRF_ALLOWED_HOSTNAMES = settings.allowedHostnames;
}

/** Uploads a file, then runs Get Download Link with Download File on (logs cleared between). */
export async function getLinkAndFile(
	env: EmulatorFixture,
	logs: string[],
	credentials: Record<string, BotDojoCredentialData> = env.credentials,
): Promise<RunResult> {
	const uploader = { ...env, credentials: { ...env.credentials, ...credentials } };
	await uploadThroughNode(uploader, Buffer.from('hello'), 'docs/a.txt', 'a.txt', 'text/plain');
	logs.length = 0;
	return await runNode({
		node: linkNode({ logicalPath: 'docs/a.txt', downloadFile: true }),
		credentials,
	});
}

/**
 * Serves `fault` as the next signed link, then runs getLinkAndFile; `connectionsBefore` is the
 * internal server's count just before.
 */
export async function getThroughLink(
	fault: { type: 'link-elsewhere' } & FaultParams,
	seen: LinkScene,
	credentials?: Record<string, BotDojoCredentialData>,
): Promise<{ result: RunResult; connectionsBefore: number }> {
	const { type, ...params } = fault;
	seen.env.emu.injectFault({ type, ...params }, { endpoint: 'getTemporarySignedUrl' });
	const connectionsBefore = seen.internal.connections;
	const result = await getLinkAndFile(seen.env, seen.logs, credentials);
	return { result, connectionsBefore };
}

/**
 * What a refused link leaves: the link's signature not shown, no connection to the internal server since `connectionsBefore`, the download
 * endpoint answered only `downloads`, no piece of the key anywhere and no flow run.
 */
export function expectNothingFetched(
	result: RunResult,
	seen: LinkScene,
	connectionsBefore: number,
	downloads: number[] = [],
): void {
	expect(whatUserSees(result)).not.toMatch(/sig=|s3cr3t/);
	expect(seen.internal.connections).toBe(connectionsBefore);
	expect(statusesOf(seen.env, 'download')).toEqual(downloads);
	expect(keyShown(result, seen.logs, seen.env.emu.keys.project)).toEqual([]);
	expect(flowRuns(seen.env)).toBe(0);
}
