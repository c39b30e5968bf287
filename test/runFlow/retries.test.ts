/* eslint-disable @n8n/community-nodes/no-restricted-globals -- test code: runs in jest, never in n8n */
/** BotDojo Run Flow: 429/503 are retried before the flow ran; nothing is retried after. */
import { useEmulator } from '../helpers/emulator';
import { message, runBodies, runFlow, startFlow } from '../helpers/runFlow';

const env = useEmulator();

const SAFE = 'Safe to retry: BotDojo did not run anything.';
const NOT_SAFE = /Not safe to retry blindly/;

describe('BotDojo Run Flow: retries before the flow ran', () => {
	it('retries 429 until BotDojo accepts, sending the same request each time', async () => {
		env.emu.injectFault('429;retryAfter=0', { endpoint: 'run', times: 2 });
		const { items, error } = await runFlow(env, { parameters: message('flow_echo', 'Hi') });
		expect(error).toBeUndefined();
		expect(items[0].json.text).toBe('Echo #1: Hi');
		const requests = env.emu.requestsTo('run');
		expect(requests.map((request) => request.status)).toEqual([429, 429, 200]);
		expect(new Set(runBodies(env).map((body) => JSON.stringify(body))).size).toBe(1);
		expect(env.emu.records.size).toBe(1);
	});

	it('retries 503 too, also for a blocking run', async () => {
		env.emu.injectFault('503;retryAfter=0', { endpoint: 'run' });
		const { error } = await runFlow(env, {
			parameters: message('flow_echo', 'Hi', { options: { streaming: false } }),
		});
		expect(error).toBeUndefined();
		expect(env.emu.requestsTo('run').map((request) => request.status)).toEqual([503, 200]);
	});

	it('bounds the attempts, and says retrying is safe', async () => {
		env.emu.injectFault('429;retryAfter=0', { endpoint: 'run', times: 10 });
		const { error } = await runFlow(env, {
			parameters: message('flow_echo', 'Hi', { options: { maxAttempts: 3 } }),
		});
		expect(error?.message).toBe('BotDojo is limiting the request rate (429)');
		expect(error?.description).toContain('Gave up after 3 attempt(s)');
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

	it('Stop ends a Retry-After wait at once', async () => {
		// A wait far longer than the test may take: only an aborted wait lets the node end.
		env.emu.injectFault('429;retryAfter=600', { endpoint: 'run', times: 10 });
		const run = startFlow(env, {
			parameters: message('flow_echo', 'Hi', { options: { maxRetryWait: 1000 } }),
		});
		// Once the 429 was answered and read, the node is waiting for the Retry-After.
		while (env.emu.requestsTo('run')[0]?.respondedAt === undefined) {
			await new Promise((resolve) => setTimeout(resolve, 5));
		}
		await new Promise((resolve) => setTimeout(resolve, 100));
		run.cancel();
		const result = await run.result;
		expect(result.run.status).toBe('canceled');
		// The node itself ended (it did not sleep on in the background).
		expect(result.error?.message).toBe('The run was canceled before BotDojo answered');
		expect(env.emu.requestsTo('run')).toHaveLength(1);
	});
});

describe('BotDojo Run Flow: no retry after BotDojo accepted the run', () => {
	it.each([
		['a 500', '500', {}, /internal error \(500\)/],
		['a dropped stream', 'drop', {}, /connection dropped/],
		['a stream without result', 'no-final', {}, /without the final result line/],
		['a stalled stream', 'stall', { idleTimeout: 0.1 }, /stalled/],
		['a bad line', 'malformed', {}, /not valid JSON/],
	])('%s is sent once and reported as not safe to retry', async (_name, fault, options, said) => {
		env.emu.injectFault(fault, { endpoint: 'run', times: 5 });
		const { error } = await runFlow(env, { parameters: message('flow_echo', 'Hi', { options }) });
		expect(error?.message).toMatch(said);
		expect(error?.description).toMatch(NOT_SAFE);
		expect(env.emu.requestsTo('run')).toHaveLength(1);
	});

	it('a connection dropped before any answer is sent once (the flow may have started)', async () => {
		env.emu.injectFault('drop', { endpoint: 'run' });
		const { error } = await runFlow(env, {
			parameters: message('flow_echo', 'Hi', { options: { streaming: false } }),
		});
		expect(error?.message).toMatch(/^The connection to BotDojo failed/);
		expect(error?.description).toMatch(NOT_SAFE);
		expect(env.emu.requestsTo('run')).toHaveLength(1);
	});

	it('an invalid request (400) is sent once and said to be safe to retry after fixing', async () => {
		const { error } = await runFlow(env, {
			parameters: message('flow_echo', 'Hi', { options: { version: '99' } }),
		});
		expect(error?.message).toMatch(/could not find it: Release '99' of flow 'flow_echo'/);
		expect(error?.description).toContain(SAFE);
		expect(env.emu.requestsTo('run')).toHaveLength(1);
	});
});
