/* eslint-disable @typescript-eslint/no-explicit-any -- test code: reads loosely typed JSON */
/** Raw HTTP calls to the emulator for its own tests: a JSON POST and a streamed run. */
import { startEmulator, type Emulator } from '../../emulator';

export type Opts = { key?: string | null; headers?: Record<string, string>; url?: string };

export const params = (...p: unknown[]) => ({ params: p });

export const tokensOf = (lines: any[]) =>
	lines
		.filter((l) => l.tag === 'onNewToken')
		.map((l) => l.data.token)
		.join('');

/** Calls bound to the emulator that `emu()` returns (it is started in beforeAll). */
export function emulatorClient(emu: () => Emulator) {
	const project = () => `${emu().baseUrl}/accounts/${emu().accountId}/projects/${emu().projectId}`;

	async function post(path: string, body: unknown, o: Opts = {}) {
		const headers: Record<string, string> = { 'Content-Type': 'application/json', ...o.headers };
		if (o.key !== null) headers.Authorization = o.key ?? emu().keys.project;
		const res = await fetch(o.url ?? project() + path, {
			method: 'POST',
			headers,
			body: JSON.stringify(body),
		});
		const text = await res.text();
		return { status: res.status, headers: res.headers, json: text ? JSON.parse(text) : undefined };
	}

	async function streamRun(
		flow: string,
		body: object,
		options: object = {},
		headers: Record<string, string> = {},
		signal?: AbortSignal,
	) {
		const res = await fetch(`${project()}/flows/${flow}/run`, {
			method: 'POST',
			headers: { Authorization: emu().keys.project, ...headers },
			body: JSON.stringify({ body, options: { stream: 'http', ...options } }),
			signal,
		});
		const chunks: Buffer[] = [];
		let error: Error | undefined;
		try {
			for await (const c of res.body as unknown as AsyncIterable<Uint8Array>)
				chunks.push(Buffer.from(c));
		} catch (e) {
			error = e as Error;
		}
		const text = Buffer.concat(chunks).toString('utf8');
		const rawLines = text.split('\n').filter(Boolean);
		return { res, chunks, text, rawLines, error, lines: () => rawLines.map((l) => JSON.parse(l)) };
	}

	return { project, post, streamRun };
}

/**
 * Starts the emulator for a test file (reset before each test) and binds the raw calls to it;
 * `emu` is filled in beforeAll.
 */
export function useRawEmulator() {
	const fixture = {} as { emu: Emulator };
	beforeAll(async () => {
		fixture.emu = await startEmulator({ port: 0 });
	});
	beforeEach(() => fixture.emu.reset());
	afterAll(async () => await fixture.emu?.close());
	return Object.assign(
		fixture,
		emulatorClient(() => fixture.emu),
	);
}
