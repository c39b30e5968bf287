/**
 * A port already taken gets a message that says which port, what may hold it and which setting
 * moves it, for the BotDojo emulator as for n8n: `npm start` (BOTDOJO_EMULATOR_PORT) and
 * `npm run emulator` (PORT). `npm start` stops before building or installing anything.
 */
import { freePort, occupyPort, runNode } from '../helpers/packageScripts';

describe('a busy emulator port', () => {
	let busy: { port: number; close: () => Promise<void> };
	beforeAll(async () => {
		busy = await occupyPort();
	});
	afterAll(() => busy.close());

	it('npm start names the port and BOTDOJO_EMULATOR_PORT, before building anything', async () => {
		const result = await runNode('scripts/start.js', {
			N8N_PORT: String(await freePort()),
			BOTDOJO_EMULATOR_PORT: String(busy.port),
			BOTDOJO_API_KEY: '',
			BOTDOJO_ACCOUNT_ID: '',
			BOTDOJO_PROJECT_ID: '',
		});
		expect(result.code).toBe(1);
		expect(result.stderr).toContain(
			`Port ${busy.port} is in use (another npm start or BotDojo emulator?). Stop that program, or set BOTDOJO_EMULATOR_PORT to another port.`,
		);
		expect(result.stderr).not.toContain('EADDRINUSE');
		expect(result.stdout).not.toContain('Building');
	});

	it('npm run emulator names the port and PORT', async () => {
		const result = await runNode('emulator/cli.js', { PORT: String(busy.port) });
		expect(result.code).toBe(1);
		expect(result.stderr.trim()).toBe(
			`Port ${busy.port} is in use (another BotDojo emulator or npm start?). Stop that program, or set PORT to another port.`,
		);
	});
});
