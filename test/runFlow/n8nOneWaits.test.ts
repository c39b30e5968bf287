/* eslint-disable @n8n/community-nodes/no-restricted-globals -- test code: runs in jest, never in n8n */
/**
 * Stop and timers on n8n 1.x, whose n8n-workflow `sleep(ms)` takes no abort signal. Why a module
 * mock: the engine tests run on n8n-core 2.41, and a second n8n-workflow beside it breaks its
 * `instanceof` checks, so 1.x's waits are put in place of 2.x's here: `jest.mock` replaces just
 * `sleep` and `sleepWithAbort` of n8n-workflow (everything else, and n8n-core, stays real) by
 * copies of the published ones, which also count the timers they leave running:
 * - n8n-workflow 1.83.0 (n8n 1.85, the oldest n8n the README supports; up to 1.97.0): only `sleep(ms)`;
 * - n8n-workflow 1.120.31 (n8n 1.123; 1.98.0 and later): `sleep(ms)` and `sleepWithAbort(ms, signal)`.
 */
import { startRun, type RunResult } from '../helpers/engine';
import { useEmulator } from '../helpers/emulator';
import { message, runFlow } from '../helpers/runFlow';
import { until } from '../helpers/until';

/** The timers of n8n-workflow's waits that have not fired or been cleared, by version. */
const mockTimers = new Map<ReturnType<typeof setTimeout>, string>();
const mockVersion = { current: '1.83.0' as '1.83.0' | '1.120.31' };

jest.mock('n8n-workflow', () => {
	const actual = jest.requireActual('n8n-workflow');
	const timer = (ms: number, done: () => void) => {
		const id = setTimeout(() => {
			mockTimers.delete(id);
			done();
		}, ms);
		mockTimers.set(id, mockVersion.current);
		return id;
	};
	// 1.83.0 and 1.120.31, dist/utils.js: `const sleep = async (ms) => await new Promise((resolve) => { setTimeout(resolve, ms); })`
	const sleep = async (ms: number) =>
		await new Promise<void>((resolve) => {
			timer(ms, resolve);
		});
	// 1.120.31, dist/cjs/utils.js: a timer cleared when the signal aborts.
	const sleepWithAbort = async (ms: number, abortSignal: AbortSignal) =>
		await new Promise<void>((resolve, reject) => {
			if (abortSignal?.aborted) return reject(new Error('Aborted'));
			const id = timer(ms, () => {
				abortSignal?.removeEventListener('abort', onAbort);
				resolve();
			});
			const onAbort = () => {
				clearTimeout(id);
				mockTimers.delete(id);
				reject(new Error('Aborted'));
			};
			abortSignal?.addEventListener('abort', onAbort, { once: true });
		});
	return {
		...actual,
		__esModule: true,
		sleep,
		get sleepWithAbort() {
			return mockVersion.current === '1.120.31' ? sleepWithAbort : undefined;
		},
	};
});

const env = useEmulator();

afterAll(() => {
	for (const id of mockTimers.keys()) clearTimeout(id);
});

describe.each(['1.83.0', '1.120.31'] as const)('with n8n-workflow %s', (version) => {
	beforeEach(() => {
		mockVersion.current = version;
	});

	it("Stop ends a Retry-After wait at once (a wait far longer than the test's time)", async () => {
		env.emu.injectFault('429;retryAfter=600', { endpoint: 'run', times: 10 });
		const run = startRun({
			node: {
				type: 'botDojoRunFlow',
				parameters: message('flow_echo', 'Hi', { options: { maxRetryWait: 1000 } }),
			},
			credentials: env.credentials,
		});
		await until(() => env.emu.requestsTo('run')[0]?.respondedAt !== undefined);
		await new Promise((resolve) => setTimeout(resolve, 100));
		run.cancel();
		const result: RunResult = await run.result;
		expect(result.run.status).toBe('canceled');
		expect(result.error?.message).toBe('The run was canceled before BotDojo answered');
		expect(env.emu.requestsTo('run')).toHaveLength(1);
	});

	it('finished runs leave no timer per run behind', async () => {
		const running = () => [...mockTimers.values()].filter((of) => of === version).length;
		const before = running();
		const fiveRuns = async () => {
			for (let run = 0; run < 5; run++) {
				const { error } = await runFlow(env, { parameters: message('flow_echo', 'Hi') });
				expect(error).toBeUndefined();
			}
			return running() - before;
		};
		const afterFive = await fiveRuns();
		const afterTen = await fiveRuns();
		if (version === '1.120.31') {
			// every wait was cancelled, its timer cleared
			expect(afterFive).toBe(0);
			expect(afterTen).toBe(0);
		} else {
			// 1.83.0's sleep cannot be cancelled: waits share sleeps, so the count does not grow
			// with the runs (at most the first run's Timeout and Idle Timeout)
			expect(afterFive).toBeLessThanOrEqual(2);
			expect(afterTen).toBe(afterFive);
		}
	});
});
