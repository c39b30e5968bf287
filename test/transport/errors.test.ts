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
