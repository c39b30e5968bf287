/** BotDojo Run Flow: 429/503 are retried before the flow ran; nothing is retried after. */
import { useEmulator } from '../helpers/emulator';
import { message, runFlow } from '../helpers/runFlow';

const env = useEmulator();

const SAFE = 'Safe to retry: BotDojo did not run anything.';
const NOT_SAFE = /Not safe to retry blindly/;

describe('BotDojo Run Flow: retries before the flow ran', () => {
	it('bounds the attempts, and says retrying is safe', async () => {
		env.emu.injectFault('429;retryAfter=0', { endpoint: 'run', times: 10 });
		const { error } = await runFlow(env, {
			parameters: message('flow_echo', 'Hi', { options: { maxAttempts: 3 } }),
		});
		expect(error?.message).toBe('BotDojo is limiting the request rate (429)');
		expect(error?.description).toContain('Gave up after 3 attempt(s)');
		// The options of this node that change it, by their names in the panel.
		expect(error?.description).toContain(
			'Lower the option Concurrency or raise the option Retry Wait (Seconds), or run the workflow later.',
		);
		expect(error?.description).toContain(SAFE);
		expect(env.emu.requestsTo('run')).toHaveLength(3);
	});

	it('bounds the total wait: a Retry-After beyond it is not waited for', async () => {
		env.emu.injectFault('429;retryAfter=5', { endpoint: 'run', times: 10 });
		const { error } = await runFlow(env, {
			parameters: message('flow_echo', 'Hi', { options: { maxRetryWait: 1 } }),
		});
		expect(error?.description).toContain('Gave up after 1 attempt(s); BotDojo asked to wait 5 s');
		expect(env.emu.requestsTo('run')).toHaveLength(1);
	});
});

describe('BotDojo Run Flow: no retry after BotDojo accepted the run', () => {
	it('a connection dropped before any answer is sent once (the flow may have started)', async () => {
		env.emu.injectFault('drop', { endpoint: 'run' });
		const { error } = await runFlow(env, {
			parameters: message('flow_echo', 'Hi', { options: { streaming: false } }),
		});
		expect(error?.message).toMatch(/^The connection to BotDojo failed/);
		expect(error?.description).toMatch(NOT_SAFE);
		expect(env.emu.requestsTo('run')).toHaveLength(1);
	});
});
