/**
 * No redirect is followed on a request to BotDojo's API: n8n's helper would send the
 * credential again to where a redirect points, another origin or plain http:// included, and
 * with 307/308 the body too. A 3xx is an error naming where it pointed; nothing reaches there.
 */
import type { INodeParameters } from 'n8n-workflow';

import { runNode } from '../helpers/engine';
import { API_KEY, useScriptedServer } from './scriptedServer';

const botdojo = useScriptedServer();
const elsewhere = useScriptedServer((_, res) => {
	res.writeHead(200, { 'content-type': 'application/json' });
	res.end('{"results":[]}');
});

const REQUESTS: Array<[string, string, INodeParameters]> = [
	[
		'Query Index',
		'botDojoQueryIndex',
		{ operation: 'queryMetadata', indexId: 'idx_1', query: '{"page":2}' },
	],
	['Create Session', 'botDojoCreateSession', { flowId: 'flow_1', dataMode: 'none' }],
	[
		'Run Flow, Streaming off',
		'botDojoRunFlow',
		{ flowId: 'flow_1', inputMode: 'message', message: 'Hi', options: { streaming: false } },
	],
	[
		'Run Flow, streamed',
		'botDojoRunFlow',
		{ flowId: 'flow_1', inputMode: 'message', message: 'Hi', options: { streaming: true } },
	],
];

describe.each([302, 307, 308])('a %i from the Base URL', (status) => {
	it.each(REQUESTS)(
		'%s: an error naming the other origin; neither key nor body reach it',
		async (_, type, parameters) => {
			botdojo.requests.length = 0;
			elsewhere.requests.length = 0;
			botdojo.answer = (request, res) => {
				res.writeHead(status, { location: `${elsewhere.origin}${request.path}` });
				res.end();
			};
			const { items, error } = await runNode({
				node: { type, parameters },
				credentials: botdojo.credentials,
			});

			expect(items).toEqual([]);
			expect(error?.message).toBe(
				`BotDojo's address answered with a redirect (${status}) to ${elsewhere.origin}, which was not followed`,
			);
			expect(error?.description).toContain(
				`If ${elsewhere.origin} is BotDojo, set the Base URL there (${elsewhere.origin}/api/v1).`,
			);
			expect(JSON.stringify(error)).not.toContain(API_KEY);
			// Sent once, to the Base URL only: nothing went to the other origin.
			expect(botdojo.requests).toHaveLength(1);
			expect(botdojo.requests[0].authorization).toBe(API_KEY);
			expect(elsewhere.requests).toEqual([]);
		},
	);
});
