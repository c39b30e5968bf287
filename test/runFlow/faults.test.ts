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
		const { error } = await runFlow(env, {
			parameters: message('flow_slow', 'Hi', { options: { timeout: 0.3 } }),
		});
		expect(error?.message).toMatch(
			/^The run took longer than the timeout of 300 ms; \d+ events? had arrived$/,
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
});
