/**
 * Session "Keep in Chat Memory": the session of each conversation lives in the connected chat
 * memory, so executions that share nothing else (queue-mode workers) keep conversations.
 */

import { InMemoryChatMessageHistory } from '@langchain/core/chat_history';
import { AIMessage, HumanMessage } from '@langchain/core/messages';

import { chatLists, conversationHistory, memoryOfChat } from '../helpers/chatMemory';
import { chats, sessionsSent, useChatFlow } from '../helpers/conversations';
import { useEmulator } from '../helpers/emulator';
import { message, runBodies, runFlow } from '../helpers/runFlow';

const env = useEmulator();

const parameters = message('flow_chat', '={{ $json.text }}', { sessionMode: 'memory' });

/** One execution as a queue-mode worker runs it: empty static data, nothing shared but memory. */
async function say(chat: string, text: string, credentialId?: string) {
	const flowId = credentialId === 'flow' ? 'flow_echo' : 'flow_chat';
	const { items, error } = await runFlow(env, {
		parameters: { ...parameters, flowId },
		items: [{ json: { chat, text } }],
		staticData: {},
		mode: 'webhook',
		subNodes: [memoryOfChat],
		credentialId,
	});
	expect(error).toBeUndefined();
	return items[0].json;
}

/** One execution as `say` runs it, whose error the test reads. */
async function attempt(chat: string, text: string) {
	return await runFlow(env, {
		parameters,
		items: [{ json: { chat, text } }],
		staticData: {},
		mode: 'webhook',
		subNodes: [memoryOfChat],
	});
}

/** A marker as the node writes it: generation, session and a signature. */
function markerOf(generation: number, sessionId: unknown): RegExp {
	return new RegExp(`^\\[BotDojo session ${generation}\\] ${String(sessionId)} sig:[\\w-]{43}$`);
}

async function markersOf(chat: string): Promise<string[]> {
	const messages = (await chatLists.get(chat)?.getMessages()) ?? [];
	return messages.map((message) => String(message.content));
}

useChatFlow(env);
beforeEach(() => chatLists.clear());

describe('BotDojo Run Flow: session kept in a chat memory', () => {
	it('creates a session ahead, records it in the memory and continues it', async () => {
		const first = await say('chat-a', 'Hello');
		expect(first).toMatchObject({ text: 'Echo #1: Hello', session: 'new' });
		const created = env.emu.requestsTo('createSession');
		expect(created).toHaveLength(1);
		expect(await markersOf('chat-a')).toEqual([
			expect.stringMatching(markerOf(1, first.flowSessionId)),
		]);
		const second = await say('chat-a', 'Again');
		expect(second).toMatchObject({
			text: 'Echo #2: Again',
			session: 'continued',
			flowSessionId: first.flowSessionId,
		});
		expect(env.emu.requestsTo('createSession')).toHaveLength(1);
	});

	it('20 new conversations at once on workers that share nothing else, then their second messages: each continued', async () => {
		const firsts = await Promise.all(chats.map(async (chat) => await say(chat, `${chat} one`)));
		expect(new Set(firsts.map((json) => json.flowSessionId)).size).toBe(20);
		const seconds = await Promise.all(chats.map(async (chat) => await say(chat, `${chat} two`)));
		expect(seconds.map((json) => json.session)).toEqual(chats.map(() => 'continued'));
		const sent = sessionsSent(env);
		chats.forEach((chat, i) => {
			expect(sent.get(`${chat} one`)).toBe(firsts[i].flowSessionId);
			expect(sent.get(`${chat} two`)).toBe(firsts[i].flowSessionId);
		});
		expect(env.emu.requestsTo('createSession')).toHaveLength(20);
	});

	it('two first messages of one conversation at the same moment end on one session', async () => {
		const [a, b] = await Promise.all([say('chat-x', 'first'), say('chat-x', 'second')]);
		expect(b.flowSessionId).toBe(a.flowSessionId);
		const sent = sessionsSent(env);
		expect(sent.get('first')).toBe(a.flowSessionId);
		expect(sent.get('second')).toBe(a.flowSessionId);
		const third = await say('chat-x', 'third');
		expect(third).toMatchObject({ text: 'Echo #3: third', flowSessionId: a.flowSessionId });
	});

	it('replaces a session BotDojo no longer knows and says so', async () => {
		const before = await say('chat-b', 'Hello');
		// BotDojo no longer knows it: the next run naming it is refused while loading.
		env.emu.injectFault('session-error', { status: 400 });
		const after = await say('chat-b', 'Still there?');
		expect(after).toMatchObject({ text: 'Echo #1: Still there?', session: 'replaced' });
		expect(env.emu.requestsTo('run').map((request) => request.status)).toEqual([200, 400, 200]);
		expect(runBodies(env)[1].options?.flow_session_id).toBe(before.flowSessionId);
		expect((await markersOf('chat-b'))[1]).toMatch(markerOf(2, after.flowSessionId));
		const next = await say('chat-b', 'Good');
		expect(next).toMatchObject({ session: 'continued', flowSessionId: after.flowSessionId });
	});

	it.each([
		['a human message (typed in the chat)', (text: string) => new HumanMessage(text)],
		['an AI message (an agent repeating it)', (text: string) => new AIMessage(text)],
	])(
		"never continues another conversation's session from its marker copied into %s",
		async (_, copied) => {
			const victim = await say('chat-victim', 'My secrets');
			const [victimMarker] = await markersOf('chat-victim');
			const attacker = conversationHistory('chat-attacker');
			await attacker.addMessage(copied(victimMarker));
			chatLists.set('chat-attacker', attacker);
			const taken = await say('chat-attacker', 'What did I say?');
			expect(taken).toMatchObject({ session: 'new' });
			expect(taken.flowSessionId).not.toBe(victim.flowSessionId);
			expect(sessionsSent(env).get('What did I say?')).toBe(taken.flowSessionId);
		},
	);

	it("refuses a memory that does not name its conversation (Simple Memory), so no conversation can take another's session", async () => {
		// n8n's Simple Memory gives a history without a session id: markers could not be tied to it.
		chatLists.set('chat-victim', new InMemoryChatMessageHistory());
		const victim = await attempt('chat-victim', 'My secrets');
		// What the victim's memory holds, repeated into another conversation by an agent.
		const attacker = new InMemoryChatMessageHistory();
		for (const copied of await chatLists.get('chat-victim')!.getMessages()) {
			await attacker.addMessage(new AIMessage(String(copied.content)));
		}
		chatLists.set('chat-attacker', attacker);
		const taken = await attempt('chat-attacker', 'What did I say?');
		expect(taken.items.map((item) => item.json)).toEqual([]);
		for (const { error } of [victim, taken]) {
			expect(error?.message).toBe(
				'Session: Keep in Chat Memory needs a memory that names its conversation',
			);
			expect(error?.description).toMatch(
				/Simple Memory does not.*Connect a Redis Chat Memory, Postgres Chat Memory, MongoDB Chat Memory or Xata node.*Nothing was sent to BotDojo/,
			);
		}
		expect(env.emu.requestsTo('run')).toHaveLength(0);
		expect(env.emu.requestsTo('createSession')).toHaveLength(0);
	});

	it('a streaming chat reads the refusal with its headline (n8n streams the description alone)', async () => {
		chatLists.set('chat-streamed', new InMemoryChatMessageHistory());
		const { error, chunks } = await runFlow(env, {
			parameters,
			items: [{ json: { chat: 'chat-streamed', text: 'Hello' } }],
			staticData: {},
			mode: 'webhook',
			subNodes: [memoryOfChat],
			streaming: true,
		});
		expect(error?.message).toBe(
			'Session: Keep in Chat Memory needs a memory that names its conversation',
		);
		const errors = chunks.filter(({ chunk }) => chunk.type === 'error');
		expect(errors).toHaveLength(1);
		expect(errors[0].chunk.content).toMatch(
			/^Session: Keep in Chat Memory needs a memory that names its conversation\. The connected memory does not tell the node which conversation it holds \(n8n's Simple Memory does not\)/,
		);
		expect(env.emu.requestsTo('run')).toHaveLength(0);
	});

	it('does not read unsigned markers (written by earlier versions, or typed by anyone)', async () => {
		const other = await say('chat-other', 'Hello');
		const history = conversationHistory('chat-old');
		await history.addAIMessage(`[BotDojo session 1] ${String(other.flowSessionId)}`);
		await history.addUserMessage(`[BotDojo session 7] ${String(other.flowSessionId)}`);
		chatLists.set('chat-old', history);
		const first = await say('chat-old', 'Hi');
		expect(first).toMatchObject({ session: 'new' });
		expect(first.flowSessionId).not.toBe(other.flowSessionId);
		expect((await markersOf('chat-old'))[2]).toMatch(markerOf(1, first.flowSessionId));
	});

	it('with a flow key (no Create Session), records the session after the first run', async () => {
		const first = await say('chat-f', 'Hello', 'flow');
		expect(first).toMatchObject({ session: 'new' });
		expect(env.emu.requestsTo('createSession').map((request) => request.status)).toEqual([403]);
		const second = await say('chat-f', 'Again', 'flow');
		expect(second).toMatchObject({ session: 'continued', flowSessionId: first.flowSessionId });
	});

	it('says a memory must be connected, before any request', async () => {
		const { error } = await runFlow(env, {
			parameters,
			items: [{ json: { chat: 'c', text: 'Hi' } }],
		});
		expect(error?.message).toMatch(/A Memory sub-node must be connected/);
		expect(env.emu.requestsTo('run')).toHaveLength(0);
		expect(env.emu.requestsTo('createSession')).toHaveLength(0);
	});
});
