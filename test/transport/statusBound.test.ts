/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals -- test code: runs in jest, never in n8n */
/**
 * BotDojo's answer must begin (its status and headers arrive) within READ_BOUNDS.statusMs.
 * n8n's own timeout counts idle time only: headers written a byte every half second, or
 * `100 Continue` sent over and over, never go idle, and a request (a Trigger poll, which Stop
 * cannot reach, included) waited forever. The bound is lowered here (0.4 s); the product: 60 s,
 * and for an upload 1 s more per 64 KiB of the file (it waited until Stop).
 */
import * as net from 'node:net';

import { runNode, runPoll, startRun } from '../helpers/engine';
import { READ_BOUNDS } from '../../nodes/shared/transport/request';
import { fileItem, uploadNode } from '../uploadDocument/documents';
import { API_KEY } from './scriptedServer';

type Stall = 'header bytes trickled' | '100 Continue over and over';

/** A server that reads the request, then never finishes its answer's head. */
async function stallingServer(stall: Stall) {
	const sockets = new Set<net.Socket>();
	let port = 0;
	const server = net.createServer((socket) => {
		sockets.add(socket);
		socket.on('error', () => undefined);
		socket.once('data', (request: Buffer) => {
			// The signed link is given at once (at this server); its download then stalls.
			if (request.includes('getTemporarySignedUrl')) {
				const link = JSON.stringify({ results: `http://127.0.0.1:${port}/files/a.txt?sig=1` });
				socket.end(
					`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${link.length}\r\nconnection: close\r\n\r\n${link}`,
				);
				return;
			}
			if (stall === 'header bytes trickled') socket.write('HTTP/1.1 200 OK\r\nX-Slow: ');
			const timer = setInterval(() => {
				if (socket.destroyed) clearInterval(timer);
				else
					socket.write(stall === 'header bytes trickled' ? 'x' : 'HTTP/1.1 100 Continue\r\n\r\n');
			}, 50);
			socket.on('close', () => clearInterval(timer));
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	port = (server.address() as net.AddressInfo).port;
	const baseUrl = `http://127.0.0.1:${port}/api/v1`;
	return {
		credentials: { main: { baseUrl, accountId: 'acc_1', projectId: 'proj_1', apiKey: API_KEY } },
		close: async () => {
			for (const socket of sockets) socket.destroy();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}

const saved = { ...READ_BOUNDS };
beforeAll(() => Object.assign(READ_BOUNDS, { statusMs: 400 }));
afterAll(() => Object.assign(READ_BOUNDS, saved));

const LATE =
	"BotDojo's answer did not begin within 0.4 s and the request was ended (the longest a request waits for BotDojo to begin its answer)";

const NODES = [
	[
		'Query Index',
		{ type: 'botDojoQueryIndex', parameters: { operation: 'getStatus', indexId: 'i' } },
	],
	[
		'Create Session',
		{ type: 'botDojoCreateSession', parameters: { flowId: 'f', dataMode: 'none' } },
	],
	[
		'Export Requests',
		{
			type: 'botDojoExportRequests',
			typeVersion: 1.1,
			parameters: { operation: 'export', flowId: 'f', returnAll: true },
		},
	],
	[
		'Get by Logical Path',
		{
			type: 'botDojoUploadDocument',
			parameters: { operation: 'getByLogicalPath', logicalPath: 'docs/a.txt' },
		},
	],
] as const;

describe.each<Stall>(['header bytes trickled', '100 Continue over and over'])('%s', (stall) => {
	let server: Awaited<ReturnType<typeof stallingServer>>;
	beforeAll(async () => (server = await stallingServer(stall)));
	afterAll(async () => await server.close());

	it.each(NODES)('%s: ends at the bound, which the error names', async (_, node) => {
		const { items, error } = await runNode({ node, credentials: server.credentials });
		expect(items).toEqual([]);
		expect(error?.message).toBe(LATE); // the 0.4 s bound ended it, not n8n's 300 s timeout
		expect(JSON.stringify(error)).not.toContain(API_KEY);
	});

	it("Get Download Link: the file's download ends at the bound, which the error names", async () => {
		const { items, error } = await runNode({
			node: {
				type: 'botDojoUploadDocument',
				parameters: {
					operation: 'getDownloadLink',
					documentSource: 'record',
					documentRecord: '{"id":"d"}',
					downloadFile: true,
				},
			},
			credentials: server.credentials,
		});
		expect(items).toEqual([]);
		expect(error?.message).toBe(LATE);
	});

	it('Upload: the bound adds 1 s per 64 KiB sent (the file may take that to send)', async () => {
		const started = Date.now();
		const { items, error } = await runNode({
			node: uploadNode({ logicalPath: 'docs/a.pdf' }),
			items: [fileItem(Buffer.alloc(64 * 1024 - 100, 1))],
			credentials: server.credentials,
		});
		expect(items).toEqual([]);
		expect(error?.message).toBe(
			"BotDojo's answer did not begin within 1.4 s and the request was ended (the longest a request waits for BotDojo to begin its answer, with 1 s per 64 KiB uploaded)",
		);
		// The file and its fields (name, path) are just under 64 KiB: 1 s more, and it was waited.
		expect(Date.now() - started).toBeGreaterThanOrEqual(1400);
	});

	it('Trigger: a poll (which Stop cannot reach) ends at the bound', async () => {
		const poll = runPoll({
			node: { type: 'botDojoTrigger', parameters: { flowId: 'f', statuses: 'both' } },
			credentials: server.credentials,
			mode: 'manual',
		});
		await expect(poll).rejects.toThrow(LATE);
	});
});

it('Stop still ends a request whose answer has not begun', async () => {
	const server = await stallingServer('header bytes trickled');
	READ_BOUNDS.statusMs = 30_000;
	try {
		const run = startRun({ node: NODES[0][1], credentials: server.credentials });
		setTimeout(() => run.cancel(), 300);
		const { error } = await run.result;
		// Stop's message, not the 30 s bound's (LATE): Stop ended it.
		expect(error?.message).toBe('The request to BotDojo was canceled');
	} finally {
		READ_BOUNDS.statusMs = 400;
		await server.close();
	}
});
