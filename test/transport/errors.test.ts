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
	it('404 for a path BotDojo does not have: every id used, and the path called', async () => {
		// As if BotDojo had moved the endpoint: its 404 names a path (ids inside it do not count
		// as the missing one), so every id used is listed, with the path to report.
		const { error } = await getStatus({
			main: { ...env.credentials.main, baseUrl: `${env.emu.origin}/api/v2` },
		});
		expect(error?.message).toBe(
			'BotDojo could not find it: No such endpoint: POST /api/v2/accounts/acc_demo/projects/proj_demo/indexes/getStatus',
		);
		expect(error?.description).toBe(
			'One of these does not exist or is not visible to this key: account "acc_demo", project "proj_demo", index "idx_docs". Check the ids in the node and in the credential. Path called: POST /api/v2/accounts/acc_demo/projects/proj_demo/indexes/getStatus. If the ids are right, report this path: BotDojo may have moved the endpoint.',
		);
	});

	it('unreachable service: says the connection was refused', async () => {
		const { error } = await getStatus({
			main: { ...env.credentials.main, baseUrl: 'http://127.0.0.1:9/api/v1' },
		});
		expect(error?.message).toMatch(/connection was refused/);
	});

	it('unreachable service: names the Base URL that could not be reached', async () => {
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
		expect(error?.description).toBe(
			'Check the Base URL in the BotDojo API credential and your network (error code ECONNREFUSED).',
		);
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
