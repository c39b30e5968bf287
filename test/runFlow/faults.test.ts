/* eslint-disable @n8n/community-nodes/no-restricted-globals -- test code: runs in jest, never in n8n */
/** BotDojo Run Flow: each way a stream can break, timeouts, and Stop. */
import { useEmulator } from '../helpers/emulator';
import { message, runFlow, startFlow } from '../helpers/runFlow';

const env = useEmulator();

const NOT_SAFE = /The flow may have run.*Not safe to retry blindly/s;

/** Waits (without a time limit of its own: jest's applies) until `check` holds. */
async function until(check: () => boolean): Promise<void> {
	while (!check()) await new Promise((resolve) => setTimeout(resolve, 5));
}

function runRequest() {
	const requests = env.emu.requestsTo('run');
	expect(requests).toHaveLength(1);
	return requests[0];
}

describe('BotDojo Run Flow: stream faults', () => {
	it('a line that is not JSON', async () => {
		env.emu.injectFault('malformed', { endpoint: 'run' });
		const { error } = await runFlow(env, { parameters: message('flow_echo', 'Hi') });
		expect(error?.message).toMatch(
			/^Line 4 of the stream is not valid JSON \(.+\): ".*#!garbage.*"; 3 events had arrived$/,
		);
		expect(error?.description).toMatch(/not JSON in the middle of the stream/);
		expect(error?.description).toMatch(NOT_SAFE);
		runRequest();
	});

	it('a stream that ends without the final result line', async () => {
		env.emu.injectFault('no-final', { endpoint: 'run' });
		const { error } = await runFlow(env, { parameters: message('flow_echo', 'Hi') });
		expect(error?.message).toBe(
			'The stream ended without the final result line; 6 events had arrived',
		);
		expect(error?.description).toMatch(
			/Look the run up among the flow requests of flow "flow_echo"/,
		);
		expect(error?.description).toMatch(NOT_SAFE);
	});

	it('a dropped connection', async () => {
		env.emu.injectFault({ type: 'drop', afterEvents: 2 }, { endpoint: 'run' });
		const { error } = await runFlow(env, { parameters: message('flow_echo', 'Hi') });
		expect(error?.message).toBe(
			'The connection dropped before the final result line (aborted); 2 events had arrived',
		);
		expect(error?.description).toMatch(NOT_SAFE);
		runRequest();
	});

	it('a stalled stream ends by the idle timeout, and the connection is closed', async () => {
		env.emu.injectFault('stall', { endpoint: 'run' });
		const { error } = await runFlow(env, {
			parameters: message('flow_echo', 'Hi', { options: { idleTimeout: 0.2 } }),
		});
		expect(error?.message).toBe(
			'The stream stalled: nothing arrived for 200 ms; 3 events had arrived',
		);
		expect(error?.description).toMatch(/Raise the Idle Timeout option/);
		expect(error?.description).toMatch(NOT_SAFE);
		// The emulator waits for the client to hang up: it did.
		const request = runRequest();
		await until(() => request.respondedAt !== undefined);
	});

	it('an oversize line is refused rather than held in memory', async () => {
		env.emu.injectFault({ type: 'huge-line', bytes: 3 * 1024 * 1024 }, { endpoint: 'run' });
		const { error } = await runFlow(env, {
			parameters: message('flow_echo', 'Hi', { options: { maxLineMiB: 1 } }),
		});
		expect(error?.message).toMatch(
			/^Line 2 of the stream is longer than 1048576 characters \(at least \d+ so far\) and was refused rather than held in memory; 1 event had arrived$/,
		);
		expect(error?.description).toMatch(/Largest Stream Line/);
		expect(error?.description).toMatch(NOT_SAFE);
	});

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
		env.emu.defineFlow('flow_wait', { delayMs: 3000, answer: () => 'late' });
		const { error } = await runFlow(env, {
			parameters: message('flow_wait', 'Hi', { options: { streaming: false, timeout: 0.2 } }),
		});
		expect(error?.message).toBe('BotDojo did not answer within the timeout of 200 ms');
		expect(error?.description).toMatch(/Not safe to retry blindly/);
		runRequest();
	});

	it('a 500 is not retried: the flow may have run', async () => {
		env.emu.injectFault('500', { endpoint: 'run' });
		const { error } = await runFlow(env, { parameters: message('flow_echo', 'Hi') });
		expect(error?.message).toBe('BotDojo had an internal error (500)');
		expect(error?.description).toMatch(/not retried automatically.*Not safe to retry blindly/s);
		runRequest();
	});
});

describe('BotDojo Run Flow: Stop', () => {
	it('ends a running stream at once', async () => {
		let cancel = () => {};
		const run = startFlow(env, {
			parameters: message('flow_slow', 'Hi'),
			streaming: true,
			onChunk: (chunk) => {
				if (chunk.type === 'item') cancel();
			},
		});
		cancel = () => run.cancel();
		const result = await run.result;
		expect(result.run.status).toBe('canceled');
		expect(result.error?.message).toMatch(
			/^The run was canceled while its stream was being read; \d+ events? had arrived$/,
		);
		const request = runRequest();
		await until(() => request.respondedAt !== undefined);
		// The flow had not finished writing when the connection closed.
		expect([...env.emu.records.values()][0].status).toBe('running');
		expect(result.chunks.filter(({ chunk }) => chunk.type === 'item').length).toBeLessThan(10);
	});
});
