import { credentialTestFunction, testCredential } from '../helpers/credentialTest';
import { useEmulator } from '../helpers/emulator';

const env = useEmulator();

const OK = { status: 'OK', message: 'Connection successful!' };

describe('BotDojo API credential test', () => {
	it('is the function every node names in testedBy (the credential has no declarative test)', () => {
		expect(credentialTestFunction().node).toBe('botDojoRunFlow');
	});

	it.each(['empty', 'notFound'] as const)(
		'passes for a project key whatever BotDojo answers for an unknown flow (export behaviour %s)',
		async (unknownFlowExport) => {
			env.emu.setBehavior({ unknownFlowExport });
			const result = await testCredential(env.credentials.main);
			expect(result).toEqual(OK);
			const [request] = env.emu.requests;
			expect(request.status).toBe(unknownFlowExport === 'empty' ? 200 : 404);
			expect(request.headers.authorization).toBe(env.emu.keys.project);
			expect(request.endpoint).toBe('export');
			expect(request.body).toEqual({ params: ['n8n-credential-check', null, 1] });
		},
	);

	it.each(['empty', 'notFound'] as const)(
		'still names account and project when they are unknown (export behaviour %s)',
		async (unknownFlowExport) => {
			env.emu.setBehavior({ unknownFlowExport });
			const result = await testCredential({ ...env.credentials.main, projectId: 'proj_missing' });
			expect(result.status).toBe('Error');
			expect(result.message).toMatch(/^Account ID or Project ID: BotDojo does not know/);
			expect(result.message).toContain('project "proj_missing"');
			expect(result.message).toContain("BotDojo said: \"Project 'proj_missing' not found");
		},
	);

	it('works with a trailing slash on the base URL', async () => {
		const result = await testCredential({
			...env.credentials.main,
			baseUrl: `${env.emu.baseUrl}/`,
		});
		expect(result).toEqual(OK);
		expect(env.emu.requests[0].path).toBe(
			'/api/v1/accounts/acc_demo/projects/proj_demo/flow_requests/export',
		);
	});

	it('fails for a wrong key, names the API Key field and never shows the key', async () => {
		const result = await testCredential(env.credentials.wrong);
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/^API Key: BotDojo rejected it \(401\)/);
		expect(result.message).not.toContain(env.credentials.wrong.apiKey);
	});

	it('explains that a flow key is valid but limited to its flow', async () => {
		const result = await testCredential(env.credentials.flow);
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/^API Key: it is valid but is a flow key \(403\)/);
		expect(result.message).toMatch(/BotDojo Run Flow for that flow/);
	});

	it.each([
		[
			'api.botdojo.com/api/v1',
			/^Base URL: "api\.botdojo\.com\/api\/v1" does not start with https:\/\//,
		],
		['', /^Base URL: is empty/],
		['https://exa mple.com', /^Base URL: "https:\/\/exa mple\.com" is not a valid address/],
	])(
		'refuses the Base URL %j before sending anything, naming the field',
		async (baseUrl, expected) => {
			const result = await testCredential({ ...env.credentials.main, baseUrl });
			expect(result.status).toBe('Error');
			expect(result.message).toMatch(expected);
			expect(result.message).toMatch(/e\.g\. https:\/\/api\.botdojo\.com\/api\/v1/);
			expect(result.message).toMatch(/Nothing was sent to BotDojo\.$/);
			expect(env.emu.requests).toHaveLength(0);
		},
	);

	it('says which Base URL could not be reached when nothing listens there', async () => {
		const baseUrl = 'http://127.0.0.1:9/api/v1';
		const result = await testCredential({ ...env.credentials.main, baseUrl });
		expect(result).toEqual({
			status: 'Error',
			message: `Base URL: could not reach BotDojo at ${baseUrl}: the connection was refused.`,
		});
	});

	it('refuses a 200 answer that is not an export page (a Base URL pointing elsewhere)', async () => {
		env.emu.setBehavior({ answerShape: 'mismatched' });
		const result = await testCredential(env.credentials.main);
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/^Base URL: .* answered, but not as the BotDojo API does/);
	});

	it('waits out a short 429 and passes, as every endpoint does', async () => {
		env.emu.injectFault({ type: '429', retryAfter: 0 }, { endpoint: 'export', times: 2 });
		const result = await testCredential(env.credentials.main);
		expect(result).toEqual(OK);
		expect(env.emu.requestsTo('export').map((request) => request.status)).toEqual([429, 429, 200]);
	});

	it('on a 429 that outlasts the bounds, says to test again after Retry-After', async () => {
		env.emu.injectFault({ type: '429', retryAfter: 40 }, { endpoint: 'export', times: 5 });
		const result = await testCredential(env.credentials.main);
		expect(result).toEqual({
			status: 'Error',
			message:
				'BotDojo is limiting the request rate (429); asked once. The credential was not checked: test again in 40 s. BotDojo said: "Too many requests: rate limit exceeded".',
		});
		expect(env.emu.requestsTo('export')).toHaveLength(1);
	});

	it('on a 503 that lasts through every attempt, says how often it asked', async () => {
		env.emu.injectFault({ type: '503', retryAfter: 0 }, { endpoint: 'export', times: 5 });
		const result = await testCredential(env.credentials.main);
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/^BotDojo is temporarily unavailable \(503\); asked 3 times\./);
		expect(result.message).toMatch(/test again in 1 s/);
		expect(env.emu.requestsTo('export')).toHaveLength(3);
	});
});
