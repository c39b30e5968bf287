/**
 * How BotDojo failures reach the user: one NodeApiError mapping for every node, with a message
 * a non-programmer can act on, and never the API key.
 */
import { runNode, type BotDojoCredentialData } from '../helpers/engine';
import { useEmulator } from '../helpers/emulator';

const env = useEmulator();

async function getStatus(
	credentials: Record<string, BotDojoCredentialData>,
	credentialId = 'main',
) {
	return await runNode({
		node: {
			type: 'botDojoQueryIndex',
			parameters: { operation: 'getStatus', indexId: 'idx_docs' },
			credentialId,
		},
		credentials,
	});
}

describe('error mapping', () => {
	it('401: says the key was rejected and where to get a new one', async () => {
		const { error } = await getStatus(env.credentials, 'wrong');
		expect(error?.message).toBe('BotDojo rejected the API key (401)');
		expect(error?.description).toMatch(/paste the key again.*without "Bearer"/);
		expect(error?.description).toMatch(/Project Settings → API Keys/);
	});

	it('403: explains flow keys when a flow key is used for anything but its flow', async () => {
		const { error } = await getStatus(env.credentials, 'flow');
		expect(error?.message).toBe('The API key is not allowed to do this (403)');
		expect(error?.description).toMatch(/flow key can only run the one flow it was made for/);
		expect(error?.description).toMatch(/BotDojo said: ".*flow_echo.*"/);
	});

	it('404: names the account and project ids that were used', async () => {
		const { error } = await getStatus({
			main: { ...env.credentials.main, accountId: 'acc_other' },
		});
		expect(error?.message).toMatch(/^BotDojo could not find it: .*acc_other/);
		expect(error?.description).toContain(
			'account "acc_other", project "proj_demo", index "idx_docs"',
		);
	});

	it.each([
		['429' as const, /limiting the request rate \(429\)/, /asked to wait 120 s/],
		['500' as const, /internal error \(500\)/, /Try again later/],
		['503' as const, /temporarily unavailable \(503\)/, /Try again in a few minutes/],
	])('%s: a clear message that says whether retrying is safe', async (type, message, advice) => {
		// A Retry-After beyond the retry policy's total wait: the node gives up at once.
		env.emu.injectFault({ type, retryAfter: 120 }, { endpoint: 'getStatus', times: 1 });
		const { error } = await getStatus(env.credentials);
		expect(error?.message).toMatch(message);
		expect(error?.description).toMatch(advice);
		expect(error?.description).toMatch(/Safe to retry/);
		expect((error as { httpCode?: string }).httpCode).toBe(type);
	});

	it('unreachable service: says the connection was refused', async () => {
		const { error } = await getStatus({
			main: { ...env.credentials.main, baseUrl: 'http://127.0.0.1:9/api/v1' },
		});
		expect(error?.message).toMatch(/connection was refused/);
	});

	it('unreachable service, programmatic nodes: names the base URL and says retrying is safe', async () => {
		const baseUrl = 'http://127.0.0.1:9/api/v1';
		const { error } = await runNode({
			node: {
				type: 'botDojoExportRequests',
				parameters: { operation: 'export', flowId: 'flow_echo', returnAll: true },
			},
			credentials: { main: { ...env.credentials.main, baseUrl } },
		});
		expect(error?.message).toBe(
			`Could not reach BotDojo at ${baseUrl}: the connection was refused`,
		);
		expect(error?.description).toMatch(/error code ECONNREFUSED\). Safe to retry/);
	});

	it('never shows the API key: not in errors, outputs or the execution data', async () => {
		const key = env.emu.keys.project;
		const failures = [
			await getStatus(env.credentials, 'wrong'),
			await getStatus(env.credentials, 'flow'),
			await getStatus({ main: { ...env.credentials.main, projectId: 'nope' } }),
			await getStatus({ main: { ...env.credentials.main, baseUrl: 'http://127.0.0.1:9/api/v1' } }),
		];
		env.emu.injectFault({ type: '500' }, { endpoint: 'getStatus' });
		failures.push(await getStatus(env.credentials));
		const success = await getStatus(env.credentials);
		expect(success.items[0].json.status).toBe('ready');
		for (const [index, result] of [...failures, success].entries()) {
			const keys = Object.values(env.credentials).map((credential) => credential.apiKey);
			const dump =
				JSON.stringify(result.run) +
				JSON.stringify(result.error, Object.getOwnPropertyNames(result.error ?? {}));
			for (const secret of [key, ...keys])
				expect({ index, leaked: dump.includes(secret) }).toEqual({ index, leaked: false });
		}
	});
});
