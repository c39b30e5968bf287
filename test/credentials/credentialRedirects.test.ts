/**
 * The credential's Test button follows no redirect: n8n's helper would send the key again to
 * where a redirect points (another origin, plain http:// included) and, on 307/308, the body.
 * A 3xx fails the test with a message naming the Base URL; nothing reaches the other server.
 */
import { testCredential } from '../helpers/credentialTest';
import { API_KEY, useScriptedServer } from '../transport/scriptedServer';

const botdojo = useScriptedServer();
// An export page: were the redirect followed, the Test would pass.
const elsewhere = useScriptedServer((_, res) => {
	res.writeHead(200, { 'content-type': 'application/json' });
	res.end('{"results":[],"nextCursor":null,"hasMore":false}');
});

const REDIRECTED =
	"Base URL: BotDojo's address answered with a redirect, which was not followed so that the API key goes nowhere else. Set the Base URL to the address the BotDojo API answers at, ending in /api/v1, e.g. https://api.botdojo.com/api/v1.";

describe.each([301, 302, 303, 307, 308])('the Test button and a %i', (status) => {
	it.each([
		['to another origin', (path: string) => `${elsewhere.origin}${path}`],
		['to a path of the same origin (relative)', (path: string) => `/moved${path}`],
	])('%s: not followed, the key and body sent once, to the Base URL only', async (_, target) => {
		botdojo.requests.length = 0;
		elsewhere.requests.length = 0;
		botdojo.answer = (request, res) => {
			if (request.path.startsWith('/moved')) {
				res.writeHead(200, { 'content-type': 'application/json' });
				res.end('{"results":[],"nextCursor":null,"hasMore":false}');
				return;
			}
			res.writeHead(status, { location: target(request.path) });
			res.end();
		};
		const result = await testCredential(botdojo.credentials.main);
		expect(result).toEqual({ status: 'Error', message: REDIRECTED });
		expect(botdojo.requests.map((request) => request.path)).toEqual([
			'/api/v1/accounts/acc_1/projects/proj_1/flow_requests/export',
		]);
		expect(botdojo.requests[0].authorization).toBe(API_KEY);
		expect(elsewhere.requests).toEqual([]);
	});
});

it.each([418, 409, 520])(
	'a %i whose status text holds the key: a worded message, never the status text',
	async (status) => {
		botdojo.answer = (_, res) => {
			res.writeHead(status, `Bad key ${API_KEY}`);
			res.end();
		};
		const result = await testCredential(botdojo.credentials.main);
		expect(result).toEqual({
			status: 'Error',
			message: `BotDojo answered the test request with status ${status}, so the credential was not checked. Check that the Base URL is the address of the BotDojo API, ending in /api/v1, e.g. https://api.botdojo.com/api/v1.`,
		});
		expect(JSON.stringify(result)).not.toContain(API_KEY);
	},
);
