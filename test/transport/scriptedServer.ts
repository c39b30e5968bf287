/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals -- test code: runs in jest, never in n8n */
/**
 * A local HTTP server that answers as a test scripts it (a redirect, a body that never ends or
 * trickles, deep JSON, pages that do not advance) and records every request it received,
 * headers and body, so a test can say what reached it. For what the emulator does not do.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

import type { BotDojoCredentialData } from '../helpers/engine';

export interface ReceivedRequest {
	method: string;
	path: string;
	authorization?: string;
	body: string;
}

export type Answer = (request: ReceivedRequest, res: http.ServerResponse) => void | Promise<void>;

export interface ScriptedServer {
	origin: string;
	requests: ReceivedRequest[];
	/** The credential of a project on this server (Base URL `<origin>/api/v1`). */
	credentials: Record<'main', BotDojoCredentialData>;
	/** The answer to every next request. */
	answer: Answer;
	close(): Promise<void>;
}

/** The credential's key: the tests look for it in every error. */
export const API_KEY = ['scripted', 'project', 'credential'].join('-');

const answerNothing: Answer = (_, res) => void res.end();

/**
 * Starts a server; `fixture`, when given, is the object filled in and answered from (the one
 * useScriptedServer returned), else a new one.
 */
export async function startScriptedServer(
	answer: Answer = answerNothing,
	fixture = { requests: [] as ReceivedRequest[], answer } as ScriptedServer,
): Promise<ScriptedServer> {
	const sockets = new Set<import('node:net').Socket>();
	const server = http.createServer((req, res) => {
		const parts: Buffer[] = [];
		req.on('data', (part: Buffer) => parts.push(part));
		req.on('end', () => {
			const request: ReceivedRequest = {
				method: req.method ?? '',
				path: req.url ?? '',
				authorization: req.headers.authorization,
				body: Buffer.concat(parts).toString('utf8'),
			};
			fixture.requests.push(request);
			void Promise.resolve(fixture.answer(request, res)).catch(() => res.destroy());
		});
	});
	server.on('connection', (socket) => {
		sockets.add(socket);
		socket.on('close', () => sockets.delete(socket));
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
	fixture.origin = origin;
	fixture.credentials = {
		main: { baseUrl: `${origin}/api/v1`, accountId: 'acc_1', projectId: 'proj_1', apiKey: API_KEY },
	};
	fixture.close = async () => {
		for (const socket of sockets) socket.destroy();
		await new Promise<void>((resolve) => server.close(() => resolve()));
	};
	return fixture;
}

/**
 * A server for a test file (or a describe block): registers beforeAll/afterAll hooks that start
 * and close it, and returns the fixture at once, filled in beforeAll, as useEmulator does. The
 * server answers from this very object, so a test's `botdojo.answer = …` takes effect.
 */
export function useScriptedServer(answer: Answer = answerNothing): ScriptedServer {
	const fixture = { requests: [] as ReceivedRequest[], answer } as ScriptedServer;
	beforeAll(async () => {
		await startScriptedServer(fixture.answer, fixture);
	});
	afterAll(async () => await fixture.close?.());
	return fixture;
}

/** Writes `piece` every `everyMs` until the client hangs up: a body that never ends. */
export function trickle(res: http.ServerResponse, piece: string, everyMs: number): void {
	const timer = setInterval(() => {
		if (res.destroyed || res.writableEnded) clearInterval(timer);
		else res.write(piece);
	}, everyMs);
	res.on('close', () => clearInterval(timer));
}

/** Writes `piece` as fast as the client reads it until the client hangs up: an endless body. */
export function flood(res: http.ServerResponse, piece: string): void {
	const chunk = Buffer.from(piece.repeat(Math.max(1, Math.floor(65_536 / piece.length))));
	const write = () => {
		while (!res.destroyed && res.write(chunk));
	};
	res.on('drain', write);
	write();
}

/** An answer that begins as JSON (`status`, `head`) and never ends: `rest` floods or trickles it. */
export function endlessJson(
	status: number,
	head: string,
	rest: (res: http.ServerResponse) => void,
	headers: http.OutgoingHttpHeaders = {},
): Answer {
	return (_, res) => {
		res.writeHead(status, { 'content-type': 'application/json', ...headers });
		res.write(head);
		rest(res);
	};
}
