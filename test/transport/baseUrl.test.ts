/** A Base URL that cannot be used is refused before anything is sent, naming the field. */
import { runNode } from '../helpers/engine';
import { useEmulator } from '../helpers/emulator';

const env = useEmulator();

describe('transport: Base URL of the credential', () => {
	it.each([
		[
			'without a scheme',
			(url: string) => url.replace(/^https?:\/\//, ''),
			/does not start with https:\/\//,
		],
		['empty', () => '  ', /is empty/],
		['not an address', () => 'https://', /is not a valid address/],
	])('refuses one %s, naming the field, and sends nothing', async (_kind, change, problem) => {
		const { error } = await runNode({
			node: {
				type: 'botDojoQueryIndex',
				parameters: { operation: 'getStatus', indexId: 'idx_docs' },
			},
			credentials: {
				main: { ...env.credentials.main, baseUrl: change(env.credentials.main.baseUrl) },
			},
		});
		expect(error?.message).toMatch(/^The Base URL of the BotDojo API credential /);
		expect(error?.message).toMatch(problem);
		expect(error?.description).toMatch(
			/e\.g\. https:\/\/api\.botdojo\.com\/api\/v1\. No request was sent\./,
		);
		expect(env.emu.requests).toHaveLength(0);
	});
});
