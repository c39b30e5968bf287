import { testCredential } from '../helpers/credentialTest';
import { useEmulator } from '../helpers/emulator';

const env = useEmulator();

describe('BotDojo API credential test', () => {
	it('passes for a project key, with the key sent raw in Authorization', async () => {
		const result = await testCredential(env.credentials.main);
		expect(result).toEqual({ status: 'OK', message: 'Connection successful!' });
		const [request] = env.emu.requests;
		expect(request.headers.authorization).toBe(env.emu.keys.project);
		expect(request.endpoint).toBe('export');
		expect(request.body).toEqual({ params: ['n8n-credential-check', null, 1] });
	});

	it('works with a trailing slash on the base URL', async () => {
		const result = await testCredential({
			...env.credentials.main,
			baseUrl: `${env.emu.baseUrl}/`,
		});
		expect(result.status).toBe('OK');
		expect(env.emu.requests[0].path).toBe(
			'/api/v1/accounts/acc_demo/projects/proj_demo/flow_requests/export',
		);
	});

	it('fails for a wrong key and says to check the key', async () => {
		const result = await testCredential(env.credentials.wrong);
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/rejected the API key/);
		expect(result.message).not.toContain(env.credentials.wrong.apiKey);
	});

	it('explains that a flow key is valid but limited to its flow', async () => {
		const result = await testCredential(env.credentials.flow);
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/valid but is a flow key/);
		expect(result.message).toMatch(/Run Flow/);
	});

	it('names account and project when they are unknown', async () => {
		const result = await testCredential({ ...env.credentials.main, projectId: 'proj_missing' });
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/account ID or project ID/);
	});
});
