/**
 * A port already taken gets a message that says which port, what may hold it and which setting
 * moves it, for the BotDojo emulator as for n8n: `npm start` (BOTDOJO_EMULATOR_PORT) and
 * `npm run emulator` (PORT). Both stop before building or installing anything.
 */
import { spawn } from 'node:child_process';
import * as net from 'node:net';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');

function occupyPort(): Promise<net.Server> {
	return new Promise((resolve) => {
		const server = net.createServer();
		server.listen(0, '127.0.0.1', () => resolve(server));
	});
}

function freePort(): Promise<number> {
	return occupyPort().then(
		(server) =>
			new Promise((resolve) => {
				const { port } = server.address() as net.AddressInfo;
				server.close(() => resolve(port));
			}),
	);
}

function run(script: string, env: Record<string, string>) {
	return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
		const child = spawn(process.execPath, [script], {
			cwd: ROOT,
			env: { ...process.env, ...env },
		});
		let stdout = '';
		let stderr = '';
		child.stdout.on('data', (chunk) => (stdout += chunk));
		child.stderr.on('data', (chunk) => (stderr += chunk));
		child.on('close', (code) => resolve({ code, stdout, stderr }));
	});
}

describe('a busy emulator port', () => {
	let busy: net.Server;
	let busyPort: number;
	beforeAll(async () => {
		busy = await occupyPort();
		busyPort = (busy.address() as net.AddressInfo).port;
	});
	afterAll(() => new Promise((resolve) => busy.close(resolve)));

	it('npm start names the port and BOTDOJO_EMULATOR_PORT, before building anything', async () => {
		const result = await run('scripts/start.js', {
			N8N_PORT: String(await freePort()),
			BOTDOJO_EMULATOR_PORT: String(busyPort),
			BOTDOJO_API_KEY: '',
			BOTDOJO_ACCOUNT_ID: '',
			BOTDOJO_PROJECT_ID: '',
		});
		expect(result.code).toBe(1);
		expect(result.stderr).toContain(
			`Port ${busyPort} is in use (another npm start or BotDojo emulator?). Stop that program, or set BOTDOJO_EMULATOR_PORT to another port.`,
		);
		expect(result.stderr).not.toContain('EADDRINUSE');
		expect(result.stdout).not.toContain('Building');
	});

	it('npm run emulator names the port and PORT', async () => {
		const result = await run('emulator/cli.js', { PORT: String(busyPort) });
		expect(result.code).toBe(1);
		expect(result.stderr.trim()).toBe(
			`Port ${busyPort} is in use (another BotDojo emulator or npm start?). Stop that program, or set PORT to another port.`,
		);
	});
});
