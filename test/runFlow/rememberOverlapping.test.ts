/**
 * Remember by Key with executions that overlap, as n8n runs them: each execution starts from a
 * copy of the workflow's saved static data and saves its own copy when it ends (last one wins).
 */
import type { IDataObject } from 'n8n-workflow';

import {
	forgetAllSessionStores,
	keyDigest,
} from '../../nodes/BotDojoRunFlow/helpers/rememberByKey';
import { chats, savedEntries, sessionsSent, useChatFlow } from '../helpers/conversations';
import { useEmulator } from '../helpers/emulator';
import { message, startFlow } from '../helpers/runFlow';

const env = useEmulator();

/** The workflow as n8n's database holds it: only its saved static data matters here. */
class SavedWorkflow {
	staticData: IDataObject = {};
	/** Whether the last execution changed the static data (n8n then saved it whole). */
	saved = false;
	constructor(readonly id: string) {}

	/** One production execution of "message → Run Flow (Remember by Key)". */
	async say(chat: string, text: string, mode: 'webhook' | 'manual' = 'webhook') {
		const copy = JSON.parse(JSON.stringify(this.staticData)) as IDataObject;
		const { items, error, staticData } = await startFlow(env, {
			parameters: message('flow_chat', '={{ $json.text }}', {
				sessionMode: 'remember',
				sessionKey: '={{ $json.chat }}',
			}),
			items: [{ json: { chat, text } }],
			staticData: mode === 'manual' ? {} : copy,
			mode,
			workflowId: this.id,
		}).result;
		expect(error).toBeUndefined();
		// n8n saves the static data of a production execution that changed it, when it ends.
		this.saved = mode !== 'manual' && staticData.__dataChanged === true;
		if (this.saved) {
			this.staticData = JSON.parse(JSON.stringify(staticData)) as IDataObject;
		}
		return items[0].json;
	}
}

useChatFlow(env);
afterEach(() => {
	forgetAllSessionStores();
	jest.restoreAllMocks();
});

const DAY_MS = 24 * 60 * 60 * 1000;

/** The saved conversations of flow_chat: key digest → "<day> <session id>". */
function savedSessions(workflow: SavedWorkflow): Map<string, string> {
	return savedEntries(workflow.staticData, 'flow_chat');
}

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
		expect(savedSessions(workflow).size).toBe(20);
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

	it('a message of a known conversation writes nothing; a new one, or a new day, writes its entry', async () => {
		const workflow = new SavedWorkflow('wf-quiet');
		const first = await workflow.say('chat-a', 'one');
		expect(workflow.saved).toBe(true);
		const afterFirst = JSON.stringify(workflow.staticData);
		expect(await workflow.say('chat-a', 'two')).toMatchObject({ session: 'continued' });
		expect(workflow.saved).toBe(false);
		forgetAllSessionStores();
		expect(await workflow.say('chat-a', 'three')).toMatchObject({ session: 'continued' });
		expect(workflow.saved).toBe(false);
		expect(JSON.stringify(workflow.staticData)).toBe(afterFirst);

		// The day of last use is saved at most once a day (it orders what is forgotten first).
		const now = Date.now();
		jest.spyOn(Date, 'now').mockImplementation(() => now + DAY_MS);
		expect(await workflow.say('chat-a', 'four')).toMatchObject({ session: 'continued' });
		expect(workflow.saved).toBe(true);
		await workflow.say('chat-a', 'five');
		expect(workflow.saved).toBe(false);

		await workflow.say('chat-b', 'one');
		expect(workflow.saved).toBe(true);
		const saved = savedSessions(workflow);
		expect([...saved.keys()]).toEqual(['chat-a', 'chat-b'].map(keyDigest));
		expect(saved.get(keyDigest('chat-a'))).toBe(
			`${Math.floor((now + DAY_MS) / DAY_MS)} ${String(first.flowSessionId)}`,
		);
	});

	it('saves each conversation as one line of one text with its key as a digest, and a map of the version before anew, once', async () => {
		const workflow = new SavedWorkflow('wf-form');
		const first = await workflow.say('chat-secret-key', 'one');
		const today = Math.floor(Date.now() / DAY_MS);
		const node = workflow.staticData['node:BotDojo'] as IDataObject;
		expect(node.remembered).toEqual({
			flow_chat: `${keyDigest('chat-secret-key')} ${today.toString(36)} ${String(first.flowSessionId)}`,
		});
		await workflow.say('chat-other', 'one');
		const text = (workflow.staticData['node:BotDojo'] as IDataObject).remembered as IDataObject;
		expect(String(text.flow_chat).split('\n')).toHaveLength(2);
		expect(JSON.stringify(workflow.staticData)).not.toContain('chat-secret-key');

		// The form of the version before, as an upgraded n8n finds it.
		(workflow.staticData['node:BotDojo'] as IDataObject).remembered = {
			flow_chat: { 'chat-old': `${today} ${String(first.flowSessionId)}` },
		};
		forgetAllSessionStores();
		expect(await workflow.say('chat-old', 'two')).toMatchObject({
			session: 'continued',
			flowSessionId: first.flowSessionId,
		});
		expect(workflow.saved).toBe(true);
		expect([...savedSessions(workflow).keys()]).toEqual([keyDigest('chat-old')]);
		await workflow.say('chat-old', 'three');
		expect(workflow.saved).toBe(false);
	});

	it('keeps 10,000 keys across a restart and forgets the least recently used first', async () => {
		const workflow = new SavedWorkflow('wf-full');
		const kept = await workflow.say('chat-kept', 'one');
		const today = Math.floor(Date.now() / DAY_MS);
		// Saved by the version before (key → "<day> <session>"), read and saved anew.
		const full: IDataObject = {};
		for (let i = 0; i < 9_999; i++) full[`old-${i}`] = `${today - 10} ses_old_${i}`;
		full['chat-kept'] = `${today} ${String(kept.flowSessionId)}`;
		(workflow.staticData['node:BotDojo'] as IDataObject).remembered = { flow_chat: full };
		forgetAllSessionStores();

		expect(await workflow.say('chat-new', 'one')).toMatchObject({ session: 'new' });
		const saved = savedSessions(workflow);
		expect(saved.size).toBe(10_000);
		expect(saved.get(keyDigest('old-0'))).toBeUndefined();
		expect(saved.get(keyDigest('old-1'))).toBe(`${today - 10} ses_old_1`);
		const savedList = () =>
			String(
				((workflow.staticData['node:BotDojo'] as IDataObject).remembered as IDataObject).flow_chat,
			).split('\n');
		expect(savedList()).toHaveLength(10_000);
		// chat-new took the slot of old-0: replacing its session rewrites that entry, no other.
		env.emu.injectFault('session-error', { status: 400 });
		const replaced = await workflow.say('chat-new', 'two');
		expect(replaced).toMatchObject({ session: 'replaced' });
		const after = savedSessions(workflow);
		expect(after.size).toBe(10_000);
		expect(after.get(keyDigest('chat-new'))).toBe(`${today} ${String(replaced.flowSessionId)}`);
		expect(savedList()).toHaveLength(10_000);
		expect(await workflow.say('chat-kept', 'two')).toMatchObject({
			session: 'continued',
			flowSessionId: kept.flowSessionId,
		});
	});

	it('after a restart, a manual execution first (the editor chat) loses no saved conversation', async () => {
		const workflow = new SavedWorkflow('wf-editor');
		const first = await workflow.say('chat-a', 'one');
		forgetAllSessionStores();
		await workflow.say('chat-editor', 'from the editor', 'manual');
		expect(await workflow.say('chat-a', 'two')).toMatchObject({
			session: 'continued',
			flowSessionId: first.flowSessionId,
		});
		await workflow.say('chat-b', 'one');
		expect([...savedSessions(workflow).keys()].sort()).toEqual(
			['chat-a', 'chat-b', 'chat-editor'].map(keyDigest).sort(),
		);
	});

	it('remembers keys named like object properties (__proto__, constructor) across a restart', async () => {
		const workflow = new SavedWorkflow('wf-names');
		const firsts = [
			await workflow.say('__proto__', 'one'),
			await workflow.say('constructor', 'one'),
		];
		forgetAllSessionStores();
		const seconds = [
			await workflow.say('__proto__', 'two'),
			await workflow.say('constructor', 'two'),
		];
		expect(seconds.map((json) => json.session)).toEqual(['continued', 'continued']);
		expect(seconds.map((json) => json.flowSessionId)).toEqual(
			firsts.map((json) => json.flowSessionId),
		);
	});
});
