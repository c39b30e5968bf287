/**
 * BotDojo Run Flow: the total timeout, streamed and blocking. Stream faults and Stop are in the
 * fault tables of test/faults/.
 */
import { useEmulator } from '../helpers/emulator';
import { message, runFlow } from '../helpers/runFlow';

const env = useEmulator();

const NOT_SAFE = /The flow may have run.*Not safe to retry blindly/s;

function runRequest() {
	const requests = env.emu.requestsTo('run');
	expect(requests).toHaveLength(1);
	return requests[0];
}

describe('BotDojo Run Flow: the total timeout', () => {
	it('the total timeout ends a slow stream', async () => {
		// Ten tokens 500 ms apart; a timeout long enough for the answer to begin on a loaded machine.
		env.emu.injectFault({ type: 'token-delay', ms: 500 }, { endpoint: 'run' });
		const { error } = await runFlow(env, {
			parameters: message('flow_slow', 'Hi', { options: { timeout: 1.5 } }),
		});
		expect(error?.message).toMatch(
			/^The run took longer than the timeout of 1500 ms; \d+ events? had arrived$/,
		);
		expect(error?.description).toMatch(NOT_SAFE);
		const record = [...env.emu.records.values()][0];
		expect(record.status).toBe('running');
	});

	it('the total timeout ends a blocking run that does not answer', async () => {
		// A timeout long enough for the request to reach the emulator on a loaded machine.
		env.emu.defineFlow('flow_wait', { delayMs: 10000, answer: () => 'late' });
		const { error } = await runFlow(env, {
			parameters: message('flow_wait', 'Hi', { options: { streaming: false, timeout: 1.5 } }),
		});
		expect(error?.message).toBe('BotDojo did not answer within the timeout of 1500 ms');
		expect(error?.description).toMatch(/Not safe to retry blindly/);
		runRequest();
	});

	// 2^31 ms and more overflow a timer: it then fires at once ("did not answer within the
	// timeout" after a few ms). Refused before anything is sent, naming the option.
	it.each([
		['timeout', 'Timeout (Seconds)', 30 * 24 * 3600],
		['idleTimeout', 'Idle Timeout (Seconds)', 2147484],
		['maxRetryWait', 'Retry Wait (Seconds)', 1e12],
	])('refuses a %s longer than a timer can wait (%s)', async (option, label, value) => {
		const { error } = await runFlow(env, {
			parameters: message('flow_echo', 'Hi', { options: { [option]: value } }),
		});
		expect(error?.message).toBe(
			`Options › ${label}: must be a number of seconds from 0 to 2147483 (about 24 days), but is ${value}`,
		);
		expect(error?.description).toMatch(/safe to fix this and run again/);
		expect(env.emu.requestsTo('run')).toHaveLength(0);
	});

	it('keeps the longest Timeout a timer can wait (2147483 s): the run answers', async () => {
		const { error, items } = await runFlow(env, {
			parameters: message('flow_echo', 'Hi', {
				options: { timeout: 2147483, idleTimeout: 2147483 },
			}),
		});
		expect(error).toBeUndefined();
		expect(items[0].json.text).toBe('Echo #1: Hi');
	});
});
