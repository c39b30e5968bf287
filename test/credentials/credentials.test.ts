/**
 * The credential's Test button, run as n8n runs a declarative credential test (see
 * test/helpers/credentialTest.ts) against the emulator.
 */
import { declarativeTest, testCredential } from '../helpers/credentialTest';
import { useEmulator } from '../helpers/emulator';
import { NODE_NAMES, PACKAGE } from '../helpers/nodeTypes';
import { nodeTypes } from '../helpers/engine';

const env = useEmulator();

const OK = { status: 'OK', message: 'Connection successful!' };
const NOT_AN_EXPORT_PAGE =
	'Base URL: the answer was not a BotDojo export page (it has no hasMore field), so the key was not checked. The Base URL may point at a proxy, a sign-in page or another service: use the BotDojo API address ending in /api/v1, e.g. https://api.botdojo.com/api/v1.';

describe('BotDojo API credential test', () => {
	it('is the credential’s declarative test: no node names a test function of its own', () => {
		expect(declarativeTest().request.method).toBe('POST');
		for (const name of NODE_NAMES) {
			const nodeType = nodeTypes.getByNameAndVersion(`${PACKAGE}.${name}`);
			for (const credential of nodeType.description.credentials ?? [])
				expect(credential).not.toHaveProperty('testedBy');
			expect(nodeType.methods?.credentialTest).toBeUndefined();
		}
	});

	it('passes for a project key, with a read-only export of a flow no project has', async () => {
		const result = await testCredential(env.credentials.main);
		expect(result).toEqual(OK);
		const [request] = env.emu.requests;
		expect(env.emu.requests).toHaveLength(1);
		expect(request.status).toBe(200);
		expect(request.headers.authorization).toBe(env.emu.keys.project);
		expect(request.path).toBe('/api/v1/accounts/acc_demo/projects/proj_demo/flow_requests/export');
		expect(request.body).toEqual({ params: ['n8n-credential-check', null, 1] });
	});

	it('works with a trailing slash and spaces around the Base URL and ids', async () => {
		const result = await testCredential({
			...env.credentials.main,
			baseUrl: ` ${env.emu.baseUrl}/ `,
			accountId: ' acc_demo ',
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
		// n8n's request helper asks once more after a 401, in case the credential can refresh.
		expect(env.emu.requests.map((request) => request.status)).toEqual([401, 401]);
	});

	it('explains that a flow key is valid but limited to its flow', async () => {
		const result = await testCredential(env.credentials.flow);
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/^API Key: it is valid but is a flow key \(403\)/);
		expect(result.message).toMatch(/BotDojo Run Flow for that flow/);
	});

	it('names account and project when BotDojo does not know them (404)', async () => {
		const result = await testCredential({ ...env.credentials.main, projectId: 'proj_missing' });
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/^Account ID or Project ID: BotDojo does not know/);
		expect(env.emu.requests[0].status).toBe(404);
	});

	it('gives up on a BotDojo that answers 404 for an unknown flow (README says so)', async () => {
		env.emu.setBehavior({ unknownFlowExport: 'notFound' });
		const result = await testCredential(env.credentials.main);
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/^Account ID or Project ID: .*\(404\)/);
	});

	it.each([
		['429', 'BotDojo is limiting the request rate (429).'],
		['503', 'BotDojo is temporarily unavailable (503).'],
		['500', 'BotDojo is temporarily unavailable (500).'],
	] as const)('on a %s, says the credential was not checked and asks once', async (type, said) => {
		env.emu.injectFault({ type, retryAfter: 0 }, { endpoint: 'export', times: 5 });
		const result = await testCredential(env.credentials.main);
		expect(result).toEqual({
			status: 'Error',
			message: `${said} The credential was not checked: test again in a minute.`,
		});
		expect(env.emu.requestsTo('export')).toHaveLength(1);
	});

	it.each(['html', 'empty', 'results', 'list', 'text'])(
		'fails a 200 that is not an export page (%s), naming the Base URL',
		async (shape) => {
			env.emu.injectFault({ type: 'wrong-shape', shape }, { endpoint: 'export' });
			const result = await testCredential(env.credentials.main);
			expect(result).toEqual({ status: 'Error', message: NOT_AN_EXPORT_PAGE });
			expect(env.emu.requestsTo('export').map((r) => r.status)).toEqual([200]);
		},
	);

	it('an answer of no items ([]) is no success either: n8n stops on it with its own error', async () => {
		env.emu.injectFault({ type: 'wrong-shape', shape: 'empty-list' }, { endpoint: 'export' });
		await expect(testCredential(env.credentials.main)).rejects.toThrow(
			"Cannot read properties of undefined (reading 'json')",
		);
	});

	it.each([
		'http://api.botdojo.com/api/v1',
		// Reaches the emulator on 127.0.0.1 if the Base URL were not refused.
		'http://user@127.0.0.1:{port}/api/v1',
	])('sends nothing to an http:// Base URL of another machine (%s)', async (template) => {
		const baseUrl = template.replace('{port}', new URL(env.emu.baseUrl).port);
		const result = await testCredential({ ...env.credentials.main, baseUrl });
		// n8n 2.40.7 shows the error code ERR_INVALID_URL (test/e2e/checks-types.js); the
		// n8n-core of these tests throws the same error without the code, so n8n shows its text.
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/^(ERR_INVALID_URL|Invalid URL)$/);
		expect(env.emu.requests).toHaveLength(0);
	});

	it('shows the error code when nothing listens at the Base URL', async () => {
		const result = await testCredential({
			...env.credentials.main,
			baseUrl: 'http://127.0.0.1:9/api/v1',
		});
		expect(result).toEqual({ status: 'Error', message: 'ECONNREFUSED' });
	});
});
