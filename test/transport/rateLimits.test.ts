/**
 * 429 (and 503) handling, in one place: BotDojo refused the request before acting on it, so it
 * is sent again within Retry-After and the node's bounds (Max Attempts, Retry Wait), the error
 * says what the user can change, and every read of a refusal is bounded (request.ts). Stop
 * during a Retry-After wait: test/faults/setup.test.ts; n8n 1.x waits: runFlow/n8nOneWaits.
 */
import { runNode } from '../helpers/engine';
import { useEmulator } from '../helpers/emulator';
import { message, runFlow } from '../helpers/runFlow';
import { READ_BOUNDS } from '../../nodes/shared/transport/request';
import { endlessJson, trickle, useScriptedServer } from './scriptedServer';

const env = useEmulator();

const SAFE = 'Safe to retry: BotDojo did not run anything.';

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

describe('Create Session: rate limits', () => {
	it.each(['429', '503'] as const)('retries a %s and creates the session once', async (type) => {
		env.emu.injectFault({ type, retryAfter: 0 }, { endpoint: 'createSession', times: 2 });
		const { items, error } = await runNode({
			node: { type: 'botDojoCreateSession', parameters: { flowId: 'flow_echo', dataMode: 'none' } },
			credentials: env.credentials,
		});
		expect(error).toBeUndefined();
		expect(typeof items[0].json.id).toBe('string');
		expect(env.emu.requestsTo('createSession').map((request) => request.status)).toEqual([
			Number(type),
			Number(type),
			200,
		]);
	});
});

describe('a 429 whose body never ends', () => {
	const botdojo = useScriptedServer();
	const saved = { ...READ_BOUNDS };
	beforeAll(() => {
		READ_BOUNDS.readMs = 400;
	});
	afterAll(() => {
		Object.assign(READ_BOUNDS, saved);
	});
	const getStatus = {
		type: 'botDojoQueryIndex',
		parameters: { operation: 'getStatus', indexId: 'idx_1' },
	};

	it('a 429 whose body trickles: each read bounded, the retries as usual, then the 429 error', async () => {
		botdojo.answer = endlessJson(429, '{"error":"slow down', (res) => trickle(res, '.', 50), {
			'retry-after': '0',
		});
		const { error } = await runNode({ node: getStatus, credentials: botdojo.credentials });
		expect(error?.message).toBe('BotDojo is limiting the request rate (429)');
		expect(error?.description).toMatch(
			/^BotDojo said: "\{"error":"slow down\.*". Gave up after 4 attempt\(s\)/,
		);
		expect(botdojo.requests).toHaveLength(4);
	});
});
