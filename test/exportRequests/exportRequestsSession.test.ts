import type { IDataObject } from 'n8n-workflow';

import { runNode } from '../helpers/engine';
import { useEmulator } from '../helpers/emulator';

const env = useEmulator();

const FLOW = 'flow_echo';
const START = Date.parse('2024-04-01T12:00:00.000Z');

interface SeededTurn {
	id: string;
	userMessage: { date: string };
	aiMessage: { date: string };
}

function sessionNode(parameters: IDataObject, extra: { continueOnFail?: boolean } = {}) {
	return {
		type: 'botDojoExportRequests',
		parameters: { operation: 'getBySession', flowId: FLOW, ...parameters } as never,
		...extra,
	};
}

/** Four turns of one session, the fourth failed (no answer), plus noise in other sessions. */
function seedChat(sessionId = 'ses_chat') {
	const turns = env.emu.seedFlowRequests(FLOW, 4, {
		start: START,
		stepMs: 30_000,
		errorEvery: 4,
		sessionId,
	});
	env.emu.seedFlowRequests(FLOW, 3, { start: START, sessionId: 'ses_other' });
	env.emu.seedFlowRequests('flow_tools', 2, { start: START, sessionId });
	return turns;
}

describe('BotDojo Export Requests: Get Many by Session', () => {
	it('returns one item per request of the session, in order', async () => {
		const turns = seedChat();
		const { items, error } = await runNode({
			node: sessionNode({ sessionId: 'ses_chat' }),
			credentials: env.credentials,
		});
		expect(error).toBeUndefined();
		expect(items.map((item) => item.json.id)).toEqual(turns.map((turn: { id: string }) => turn.id));
		expect(items.every((item) => item.json.flow_session_id === 'ses_chat')).toBe(true);
		expect(items.map((item) => item.pairedItem)).toEqual(turns.map(() => ({ item: 0 })));
		expect(env.emu.requestsTo('loadByFlowSession').map((r: { body: unknown }) => r.body)).toEqual([
			{ params: [FLOW, 'ses_chat'] },
		]);
	});

	it('rebuilds the session as one conversation from the user and AI messages', async () => {
		const turns = seedChat();
		const { items, error } = await runNode({
			node: sessionNode({ sessionId: 'ses_chat', sessionOptions: { asOneConversation: true } }),
			credentials: env.credentials,
		});
		expect(error).toBeUndefined();
		expect(items).toHaveLength(1);
		expect(items[0].pairedItem).toEqual({ item: 0 });
		const message = (role: string, content: string, date: string) => ({ role, content, date });
		expect(items[0].json).toEqual({
			flowId: FLOW,
			sessionId: 'ses_chat',
			messages: [
				...turns
					.slice(0, 3)
					.flatMap((turn: SeededTurn, i: number) => [
						message('user', `Seeded question ${i + 1}`, turn.userMessage.date),
						message('assistant', `Seeded answer ${i + 1}`, turn.aiMessage.date),
					]),
				// The failed fourth turn has no answer: only its question remains.
				message('user', 'Seeded question 4', turns[3].userMessage.date),
			],
		});
	});

	it('reads one session per input item, each conversation paired with its item', async () => {
		seedChat('ses_a');
		env.emu.seedFlowRequests(FLOW, 1, { start: START, sessionId: 'ses_b' });
		const { items } = await runNode({
			node: sessionNode({
				sessionId: '={{ $json.session }}',
				sessionOptions: { asOneConversation: true },
			}),
			items: [{ json: { session: 'ses_a' } }, { json: { session: 'ses_b' } }],
			credentials: env.credentials,
		});
		expect(
			items.map((item) => [item.json.sessionId, (item.json.messages as unknown[]).length]),
		).toEqual([
			['ses_a', 7],
			['ses_b', 2],
		]);
		expect(items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
	});

	it('gives no items for a session without requests, and an empty conversation as one item', async () => {
		const perRecord = await runNode({
			node: sessionNode({ sessionId: 'ses_none' }),
			credentials: env.credentials,
		});
		expect(perRecord.error).toBeUndefined();
		expect(perRecord.items).toEqual([]);

		const conversation = await runNode({
			node: sessionNode({ sessionId: 'ses_none', sessionOptions: { asOneConversation: true } }),
			credentials: env.credentials,
		});
		expect(conversation.items.map((item) => item.json)).toEqual([
			{ flowId: FLOW, sessionId: 'ses_none', messages: [] },
		]);
	});

	it('refuses an empty Session ID before any request; Continue On Fail keeps the other items', async () => {
		const turns = seedChat();
		const { items, error } = await runNode({
			node: sessionNode({ sessionId: '={{ $json.session }}' }, { continueOnFail: true }),
			items: [{ json: { session: '' } }, { json: { session: 'ses_chat' } }],
			credentials: env.credentials,
		});
		expect(error).toBeUndefined();
		expect(items[0]).toEqual({
			json: {
				error: 'Session ID: is empty',
				description:
					'Enter the ID of a session of this flow, e.g. the flow_session_id of a flow request.',
			},
			pairedItem: { item: 0 },
		});
		expect(items.slice(1).map((item) => item.json.id)).toEqual(
			turns.map((turn: { id: string }) => turn.id),
		);
		expect(env.emu.requestsTo('loadByFlowSession')).toHaveLength(1);
	});

	it('maps a wrong API key to the 401 message', async () => {
		const { error } = await runNode({
			node: { ...sessionNode({ sessionId: 'ses_chat' }), credentialId: 'wrong' },
			credentials: env.credentials,
		});
		expect(error?.message).toBe('BotDojo rejected the API key (401)');
		expect(JSON.stringify(error)).not.toContain(env.credentials.wrong.apiKey);
	});
});
