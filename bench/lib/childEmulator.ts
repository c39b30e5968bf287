/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-dangerous-functions -- benchmark code: runs in jest, never in n8n */
/**
 * The emulator in a child process, like a remote BotDojo: its JSON encoding, garbage and CPU do
 * not land in the measured process. Driven over IPC, one answer per call, in order.
 */
import { spawn } from 'node:child_process';
import * as path from 'node:path';

import type { BotDojoCredentialData } from '../../test/helpers/engine';

export interface ChildEmulator {
	credentials: BotDojoCredentialData;
	/** emu.seedFlowRequests(flowId, count, seed) in the child. */
	seedFlowRequests(flowId: string, count: number, seed?: object): Promise<void>;
	/** How many requests the emulator has answered on a route (e.g. 'export', 'run'). */
	requestsTo(route: string): Promise<number>;
	/** Forgets records, sessions and documents (emu.reset()). */
	reset(): Promise<void>;
	close(): Promise<void>;
}

const CHILD = `
	const { startEmulator } = require(process.argv[1]);
	startEmulator({ port: 0 }).then((emu) => {
		process.on('message', ({ call, args }) => {
			if (call === 'close') return emu.close().then(() => process.exit(0));
			let value = null;
			if (call === 'seedFlowRequests') emu.seedFlowRequests(...args);
			if (call === 'requestsTo') value = emu.requestsTo(args[0]).length;
			if (call === 'reset') emu.reset();
			process.send({ value });
		});
		process.send({ value: { baseUrl: emu.baseUrl, accountId: emu.accountId,
			projectId: emu.projectId, apiKey: emu.keys.project } });
	});`;

export async function startChildEmulator(): Promise<ChildEmulator> {
	const child = spawn(process.execPath, ['-e', CHILD, path.resolve(__dirname, '../../emulator')], {
		stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
	});
	const waiting: Array<{ resolve(value: unknown): void; reject(error: Error): void }> = [];
	child.on('message', (message) => waiting.shift()?.resolve((message as { value: unknown }).value));
	child.once('exit', (code) => {
		for (const waiter of waiting.splice(0))
			waiter.reject(new Error(`emulator exited with ${code}`));
	});
	const answer = () => new Promise<unknown>((resolve, reject) => waiting.push({ resolve, reject }));
	const call = async (name: string, ...args: unknown[]) => {
		const value = answer();
		child.send({ call: name, args });
		return await value;
	};
	const credentials = (await answer()) as BotDojoCredentialData;
	return {
		credentials,
		seedFlowRequests: async (...args) => void (await call('seedFlowRequests', ...args)),
		requestsTo: async (route) => (await call('requestsTo', route)) as number,
		reset: async () => void (await call('reset')),
		async close() {
			const exited = new Promise((resolve) => child.once('exit', resolve));
			child.send({ call: 'close', args: [] });
			await exited;
		},
	};
}
