/** Starts the BotDojo emulator for a test file and builds credentials that point at it. */
import { startEmulator, type Emulator } from '../../emulator';
import type { BotDojoCredentialData } from './engine';

export interface EmulatorFixture {
	emu: Emulator;
	/** `main`: project key; `flow`: flow key for flow_echo; `noUpload`; `wrong`: an unknown key. */
	credentials: Record<'main' | 'flow' | 'noUpload' | 'wrong', BotDojoCredentialData>;
}

/** Registers beforeAll/afterAll/beforeEach hooks and returns the fixture, filled in beforeAll. */
export function useEmulator(): EmulatorFixture {
	const fixture = {} as EmulatorFixture;
	beforeAll(async () => {
		fixture.emu = await startEmulator({ port: 0 });
		const base = {
			baseUrl: fixture.emu.baseUrl,
			accountId: fixture.emu.accountId,
			projectId: fixture.emu.projectId,
		};
		fixture.credentials = {
			main: { ...base, apiKey: fixture.emu.keys.project },
			flow: { ...base, apiKey: fixture.emu.keys.flow },
			noUpload: { ...base, apiKey: fixture.emu.keys.noUpload },
			wrong: { ...base, apiKey: `${fixture.emu.keys.project}-revoked` },
		};
	});
	beforeEach(() => fixture.emu.reset());
	afterAll(async () => await fixture.emu?.close());
	return fixture;
}
