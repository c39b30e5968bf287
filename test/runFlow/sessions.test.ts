/** BotDojo Run Flow: new, continued and remembered sessions. */
import type { IDataObject } from 'n8n-workflow';

import {
	forgetAllSessionStores,
	keyDigest,
} from '../../nodes/BotDojoRunFlow/helpers/rememberByKey';
import { savedEntries } from '../helpers/conversations';
import { runNode } from '../helpers/engine';
import { useEmulator } from '../helpers/emulator';
import { message, runBodies, runFlow } from '../helpers/runFlow';

const env = useEmulator();
// Each test as in a freshly started n8n: only the static data it passes is remembered.
afterEach(() => forgetAllSessionStores());

/** The session saved for a conversation (its key saved as a digest). */
function savedSession(staticData: IDataObject, flowId: string, key: string): string | undefined {
	return /^\d+ (.+)$/.exec(String(savedEntries(staticData, flowId).get(keyDigest(key))))?.[1];
}

function remember(extra: IDataObject = {}) {
	return message('flow_echo', '={{ $json.text }}', {
		sessionMode: 'remember',
		sessionKey: '={{ $json.chat }}',
		...extra,
	});
}

describe('BotDojo Run Flow: sessions', () => {
	it('starts a new session for each run by default', async () => {
		const first = await runFlow(env, { parameters: message('flow_echo', 'One') });
		const second = await runFlow(env, { parameters: message('flow_echo', 'Two') });
		expect(first.items[0].json.text).toBe('Echo #1: One');
		expect(second.items[0].json.text).toBe('Echo #1: Two');
		expect(first.items[0].json.flowSessionId).not.toBe(second.items[0].json.flowSessionId);
		expect(runBodies(env).map((body) => body.options)).toEqual([
			{ stream: 'http' },
			{ stream: 'http' },
		]);
	});

	it('continues the session of an earlier run: the flow remembers it', async () => {
		const first = await runFlow(env, { parameters: message('flow_echo', 'One') });
		const sessionId = first.items[0].json.flowSessionId as string;
		const second = await runFlow(env, {
			parameters: message('flow_echo', 'Two', {
				sessionMode: 'continue',
				sessionId: '={{ $json.flowSessionId }}',
			}),
			items: [{ json: first.items[0].json }],
		});
		expect(second.items[0].json.text).toBe('Echo #2: Two');
		expect(second.items[0].json.flowSessionId).toBe(sessionId);
		expect(runBodies(env)[1].options).toEqual({ flow_session_id: sessionId, stream: 'http' });
	});

	it('continues a session made by BotDojo Create Session', async () => {
		const created = await runNode({
			node: { type: 'botDojoCreateSession', parameters: { flowId: 'flow_echo', dataMode: 'none' } },
			credentials: env.credentials,
		});
		const sessionId = created.items[0].json.id as string;
		const { items } = await runFlow(env, {
			parameters: message('flow_echo', 'Hi', { sessionMode: 'continue', sessionId }),
		});
		expect(items[0].json).toMatchObject({ text: 'Echo #1: Hi', flowSessionId: sessionId });
	});

	it('says clearly when the session to continue does not exist', async () => {
		const { error } = await runFlow(env, {
			parameters: message('flow_echo', 'Hi', { sessionMode: 'continue', sessionId: 'ses_gone' }),
		});
		expect(error?.message).toMatch(/Error loading session ses_gone/);
		expect(error?.description).toContain('Safe to retry');
	});

	it('refuses an empty session ID or key before any request', async () => {
		const noId = await runFlow(env, {
			parameters: message('flow_echo', 'Hi', { sessionMode: 'continue', sessionId: '' }),
		});
		expect(noId.error?.message).toBe('Session ID: is empty');
		expect(noId.error?.context?.itemIndex).toBe(0);
		const noKey = await runFlow(env, {
			parameters: remember(),
			items: [{ json: { text: 'Hi' } }],
		});
		expect(noKey.error?.message).toBe('Session Key: is empty');
		expect(noKey.error?.context?.itemIndex).toBe(0);
		expect(env.emu.requestsTo('run')).toHaveLength(0);
	});
});

describe('BotDojo Run Flow: remember by key', () => {
	it('starts a session for a new key and continues it for the next message', async () => {
		const staticData: IDataObject = {};
		const say = async (chat: string, text: string) =>
			await runFlow(env, {
				parameters: remember(),
				items: [{ json: { chat, text } }],
				staticData,
				mode: 'webhook',
			});
		const a1 = await say('chat-a', 'Hello');
		const a2 = await say('chat-a', 'Again');
		const b1 = await say('chat-b', 'Other');
		expect([a1, a2, b1].map((run) => run.items[0].json.text)).toEqual([
			'Echo #1: Hello',
			'Echo #2: Again',
			'Echo #1: Other',
		]);
		expect([a1, a2, b1].map((run) => run.items[0].json.session)).toEqual([
			'new',
			'continued',
			'new',
		]);
		const sessionA = a1.items[0].json.flowSessionId;
		expect(a2.items[0].json.flowSessionId).toBe(sessionA);
		expect(b1.items[0].json.flowSessionId).not.toBe(sessionA);
		expect(runBodies(env).map((body) => body.options?.flow_session_id)).toEqual([
			undefined,
			sessionA,
			undefined,
		]);
		// The map lives in the node's static data, which n8n saves for production executions.
		const remembered = (staticData['node:BotDojo'] as IDataObject).remembered as IDataObject;
		expect(Object.keys(remembered)).toEqual(['flow_echo']);
		expect([...savedEntries(staticData, 'flow_echo').keys()]).toEqual(
			['chat-a', 'chat-b'].map(keyDigest),
		);
		expect(savedSession(staticData, 'flow_echo', 'chat-a')).toBe(sessionA);
	});

	it('runs messages with the same key one after another, even with concurrency', async () => {
		const { items } = await runFlow(env, {
			parameters: remember({ options: { concurrency: 4 } }),
			items: [
				{ json: { chat: 'c1', text: 'a' } },
				{ json: { chat: 'c2', text: 'b' } },
				{ json: { chat: 'c1', text: 'c' } },
				{ json: { chat: 'c1', text: 'd' } },
			],
			staticData: {},
		});
		expect(items.map((item) => item.json.text)).toEqual([
			'Echo #1: a',
			'Echo #1: b',
			'Echo #2: c',
			'Echo #3: d',
		]);
		const ids = items.map((item) => item.json.flowSessionId);
		expect(ids[0]).toBe(ids[2]);
		expect(ids[0]).toBe(ids[3]);
		expect(ids[1]).not.toBe(ids[0]);
	});

	it('starts over when BotDojo no longer knows the remembered session', async () => {
		const staticData: IDataObject = {
			'node:BotDojo': { sessions: { '["flow_echo","chat-a"]': { id: 'ses_expired', usedAt: 1 } } },
		};
		const { items, error } = await runFlow(env, {
			parameters: remember(),
			items: [{ json: { chat: 'chat-a', text: 'Hi' } }],
			staticData,
		});
		expect(error).toBeUndefined();
		expect(items[0].json).toMatchObject({ text: 'Echo #1: Hi', session: 'replaced' });
		const requests = env.emu.requestsTo('run');
		expect(requests.map((request) => request.status)).toEqual([400, 200]);
		expect(runBodies(env).map((body) => body.options?.flow_session_id)).toEqual([
			'ses_expired',
			undefined,
		]);
		expect(savedSession(staticData, 'flow_echo', 'chat-a')).toBe(items[0].json.flowSessionId);
		// The form of earlier versions is read, and left out of what is saved.
		expect(JSON.parse(JSON.stringify(staticData))['node:BotDojo']).not.toHaveProperty('sessions');
	});

	it.each([404, 500, 502])(
		// (A 503 is first retried like every 503, and continues the session when a retry passes.)
		'starts over when BotDojo refuses the remembered session with a %i (issue 13 §4)',
		async (status) => {
			const staticData: IDataObject = {};
			const first = await runFlow(env, {
				parameters: remember(),
				items: [{ json: { chat: 'chat-a', text: 'Hi' } }],
				staticData,
			});
			env.emu.injectFault('session-error', { status });
			const { items, error } = await runFlow(env, {
				parameters: remember(),
				items: [{ json: { chat: 'chat-a', text: 'Again' } }],
				staticData,
			});
			expect(error).toBeUndefined();
			expect(items[0].json).toMatchObject({ text: 'Echo #1: Again', session: 'replaced' });
			// Refused before the flow ran, then run once in a new session: never twice.
			expect(env.emu.requestsTo('run').map((request) => request.status)).toEqual([
				200,
				status,
				200,
			]);
			expect(runBodies(env).map((body) => body.options?.flow_session_id)).toEqual([
				undefined,
				first.items[0].json.flowSessionId,
				undefined,
			]);
		},
	);

	it('does not start over on an error that is not a refused session (the flow may have run)', async () => {
		const staticData: IDataObject = {};
		const first = await runFlow(env, {
			parameters: remember(),
			items: [{ json: { chat: 'chat-a', text: 'Hi' } }],
			staticData,
		});
		env.emu.injectFault('500', { endpoint: 'run' });
		const { error } = await runFlow(env, {
			parameters: remember(),
			items: [{ json: { chat: 'chat-a', text: 'Again' } }],
			staticData,
		});
		expect(error).toBeDefined();
		expect(runBodies(env).map((body) => body.options?.flow_session_id)).toEqual([
			undefined,
			first.items[0].json.flowSessionId,
		]);
		const next = await runFlow(env, {
			parameters: remember(),
			items: [{ json: { chat: 'chat-a', text: 'Later' } }],
			staticData,
		});
		expect(next.items[0].json).toMatchObject({
			session: 'continued',
			flowSessionId: first.items[0].json.flowSessionId,
		});
	});

	it('keeps the session of a run whose flow reported an error', async () => {
		const staticData: IDataObject = {};
		const { error } = await runFlow(env, {
			parameters: message('flow_error', 'Hi', { sessionMode: 'remember', sessionKey: 'k' }),
			staticData,
		});
		expect(error?.message).toMatch(/The flow reported an error/);
		const record = [...env.emu.records.values()][0];
		expect(savedSession(staticData, 'flow_error', 'k')).toBe(record.flow_session_id);
	});
});
