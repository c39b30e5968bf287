/**
 * Remember by Key with executions that overlap, as n8n runs them: each execution starts from a
 * copy of the workflow's saved static data and saves its own copy when it ends (last one wins).
 */
import type { IDataObject } from 'n8n-workflow';

import { forgetAllSessionStores } from '../../nodes/BotDojoRunFlow/actions/sessionStore';
import { chats, sessionsSent, useChatFlow } from '../helpers/conversations';
import { useEmulator } from '../helpers/emulator';
import { message, startFlow } from '../helpers/runFlow';

const env = useEmulator();

/** The workflow as n8n's database holds it: only its saved static data matters here. */
class SavedWorkflow {
	staticData: IDataObject = {};
	constructor(readonly id: string) {}

	/** One production execution of "message → Run Flow (Remember by Key)". */
	async say(chat: string, text: string) {
		const copy = JSON.parse(JSON.stringify(this.staticData)) as IDataObject;
		const { items, error, staticData } = await startFlow(env, {
			parameters: message('flow_chat', '={{ $json.text }}', {
				sessionMode: 'remember',
				sessionKey: '={{ $json.chat }}',
			}),
			items: [{ json: { chat, text } }],
			staticData: copy,
			mode: 'webhook',
			workflowId: this.id,
		}).result;
		expect(error).toBeUndefined();
		// n8n saves the static data of an execution that changed it, when the execution ends.
		if (staticData.__dataChanged === true) {
			this.staticData = JSON.parse(JSON.stringify(staticData)) as IDataObject;
		}
		return items[0].json;
	}
}

useChatFlow(env);
afterEach(() => forgetAllSessionStores());

describe('BotDojo Run Flow: remember by key with overlapping executions', () => {
	it('20 new conversations at once, then their second messages at once: 20 sessions, each continued', async () => {
		const workflow = new SavedWorkflow('wf-twenty');
		const firsts = await Promise.all(
			chats.map(async (chat) => await workflow.say(chat, `${chat} one`)),
		);
		expect(firsts.map((json) => json.session)).toEqual(chats.map(() => 'new'));
		const created = new Map(chats.map((chat, i) => [chat, firsts[i].flowSessionId as string]));
		expect(new Set(created.values()).size).toBe(20);
		expect(env.emu.sessions.size).toBe(20);

		const seconds = await Promise.all(
			chats.map(async (chat) => await workflow.say(chat, `${chat} two`)),
		);
		expect(seconds.map((json) => json.text)).toEqual(chats.map((chat) => `Echo #2: ${chat} two`));
		expect(seconds.map((json) => json.session)).toEqual(chats.map(() => 'continued'));
		const sent = sessionsSent(env);
		for (const chat of chats) {
			expect(sent.get(`${chat} one`)).toBeUndefined();
			expect(sent.get(`${chat} two`)).toBe(created.get(chat));
		}
		expect(env.emu.sessions.size).toBe(20);
		// Whichever execution saved last saved every mapping.
		const saved = (workflow.staticData['node:BotDojo'] as IDataObject).sessions as IDataObject;
		expect(Object.keys(saved)).toHaveLength(20);
	});

	it('keeps every conversation across a restart of n8n between messages', async () => {
		const workflow = new SavedWorkflow('wf-restart');
		const firsts = await Promise.all(
			chats.map(async (chat) => await workflow.say(chat, `${chat} one`)),
		);
		forgetAllSessionStores();
		const seconds = await Promise.all(
			chats.map(async (chat) => await workflow.say(chat, `${chat} two`)),
		);
		expect(seconds.map((json) => json.flowSessionId)).toEqual(
			firsts.map((json) => json.flowSessionId),
		);
		expect(seconds.map((json) => json.session)).toEqual(chats.map(() => 'continued'));
		expect(env.emu.sessions.size).toBe(20);
	});

	it('two first messages of one conversation at the same moment end on one session', async () => {
		const workflow = new SavedWorkflow('wf-twins');
		const [a, b] = await Promise.all([
			workflow.say('chat-x', 'first'),
			workflow.say('chat-x', 'second'),
		]);
		expect(env.emu.sessions.size).toBe(1);
		expect(b.flowSessionId).toBe(a.flowSessionId);
		expect([a.session, b.session]).toEqual(['new', 'continued']);
		expect([a.text, b.text]).toEqual(['Echo #1: first', 'Echo #2: second']);
		const third = await workflow.say('chat-x', 'third');
		expect(third).toMatchObject({ text: 'Echo #3: third', flowSessionId: a.flowSessionId });
	});

	it('keeps the conversations of two workflows apart', async () => {
		const one = new SavedWorkflow('wf-one');
		const two = new SavedWorkflow('wf-two');
		const [a, b] = await Promise.all([
			one.say('same-key', 'to one'),
			two.say('same-key', 'to two'),
		]);
		expect(a.flowSessionId).not.toBe(b.flowSessionId);
		expect([a.session, b.session]).toEqual(['new', 'new']);
	});
});
