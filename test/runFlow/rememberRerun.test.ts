/**
 * Remember by Key starts a run again in a new session only when BotDojo's own words begin with
 * "Error loading session" (it refused the session before the flow ran). A 500 after the flow ran
 * that merely quotes the phrase (here the user's own message) must fail the item, with one run:
 * before, the flow ran twice (its e-mail step too).
 */
import type { IDataObject } from 'n8n-workflow';

import { runNode } from '../helpers/engine';
import { useScriptedServer } from '../transport/scriptedServer';

const botdojo = useScriptedServer();

const remember = {
	type: 'botDojoRunFlow',
	parameters: {
		flowId: 'flow_1',
		inputMode: 'message',
		message: '={{ $json.text }}',
		sessionMode: 'remember',
		sessionKey: '={{ $json.chat }}',
		options: { streaming: false },
	},
};

it('a 500 after the flow ran, quoting the user words "error loading session": run once', async () => {
	const staticData: IDataObject = {};
	botdojo.answer = (_, res) => {
		res.writeHead(200, { 'content-type': 'application/json' });
		res.end(
			'{"id":"req_1","flow_session_id":"ses_1","status":"complete","response":{"text_output":"ok"}}',
		);
	};
	const first = await runNode({
		node: remember,
		items: [{ json: { chat: 'a', text: 'Hi' } }],
		credentials: botdojo.credentials,
		staticData,
	});
	expect(first.error).toBeUndefined();
	botdojo.requests.length = 0;
	botdojo.answer = (request, res) => {
		// The flow ran (it sent the e-mail), then failed quoting the user's message.
		const ran = JSON.parse(request.body).options?.flow_session_id === 'ses_1';
		res.writeHead(ran ? 500 : 200, { 'content-type': 'application/json' });
		res.end(
			ran
				? '{"error":"The flow failed after its e-mail step while answering: Why do I get Error loading session?"}'
				: '{"id":"req_3","flow_session_id":"ses_2","status":"complete","response":{"text_output":"again"}}',
		);
	};
	const second = await runNode({
		node: remember,
		items: [{ json: { chat: 'a', text: 'Why do I get Error loading session?' } }],
		credentials: botdojo.credentials,
		staticData,
	});
	expect(botdojo.requests).toHaveLength(1);
	expect(second.error?.message).toBe('BotDojo could not handle the request (500)');
	expect(second.error?.description).toContain('Not safe to retry blindly');
});

it('BotDojo refusing the remembered session: one run more, in a new session', async () => {
	const staticData: IDataObject = {};
	const record = (session: string) =>
		`{"id":"r","flow_session_id":"${session}","status":"complete","response":{"text_output":"ok"}}`;
	botdojo.answer = (_, res) => {
		res.writeHead(200, { 'content-type': 'application/json' });
		res.end(record('ses_1'));
	};
	const items = [{ json: { chat: 'b', text: 'Hi' } }];
	await runNode({ node: remember, items, credentials: botdojo.credentials, staticData });
	botdojo.requests.length = 0;
	botdojo.answer = (request, res) => {
		const remembered = JSON.parse(request.body).options?.flow_session_id === 'ses_1';
		res.writeHead(remembered ? 500 : 200, { 'content-type': 'application/json' });
		res.end(remembered ? '{"error":"Error loading session ses_1"}' : record('ses_2'));
	};
	const again = await runNode({
		node: remember,
		items,
		credentials: botdojo.credentials,
		staticData,
	});
	expect(again.error).toBeUndefined();
	expect(botdojo.requests).toHaveLength(2);
	expect(again.items[0].json.session).toBe('replaced');
});

it('a redirect whose body says "Error loading session" is no refusal: one run, no new session', async () => {
	const staticData: IDataObject = {};
	botdojo.answer = (_, res) => {
		res.writeHead(200, { 'content-type': 'application/json' });
		res.end(
			'{"id":"r","flow_session_id":"ses_1","status":"complete","response":{"text_output":"ok"}}',
		);
	};
	const items = [{ json: { chat: 'c', text: 'Hi' } }];
	await runNode({ node: remember, items, credentials: botdojo.credentials, staticData });
	botdojo.requests.length = 0;
	botdojo.answer = (_, res) => {
		res.writeHead(302, { 'content-type': 'application/json', location: '/elsewhere' });
		res.end('{"error":"Error loading session ses_1"}');
	};
	const again = await runNode({
		node: remember,
		items,
		credentials: botdojo.credentials,
		staticData,
	});
	expect(botdojo.requests).toHaveLength(1);
	expect(again.error?.message).toContain('answered with a redirect (302)');
});
