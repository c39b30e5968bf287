/** BotDojo Run Flow: nothing is retried after BotDojo accepted the run (429/503 retries: test/transport/rateLimits.test.ts). */
import { useEmulator } from '../helpers/emulator';
import { message, runFlow } from '../helpers/runFlow';

const env = useEmulator();

const NOT_SAFE = /Not safe to retry blindly/;

describe('BotDojo Run Flow: no retry after BotDojo accepted the run', () => {
	it('a connection dropped before any answer is sent once (the flow may have started)', async () => {
		env.emu.injectFault('drop', { endpoint: 'run' });
		const { error } = await runFlow(env, {
			parameters: message('flow_echo', 'Hi', { options: { streaming: false } }),
		});
		expect(error?.message).toMatch(/^The connection to BotDojo was lost/);
		expect(error?.description).toMatch(NOT_SAFE);
		expect(env.emu.requestsTo('run')).toHaveLength(1);
	});
});
