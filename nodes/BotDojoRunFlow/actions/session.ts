/**
 * Which BotDojo session a run uses: a new one, a given one, or the one remembered for a key
 * (e.g. a Chat Trigger's sessionId) in the workflow's static data.
 */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { requireText } from '../../shared/validation';
import { NOTHING_SENT } from './input';

export const sessionProperties: INodeProperties[] = [
	{
		displayName: 'Session',
		name: 'sessionMode',
		type: 'options',
		noDataExpression: true,
		options: [
			{
				name: 'New Session',
				value: 'new',
				description: 'Each run starts a new session, without memory of earlier runs',
			},
			{
				name: 'Continue Session',
				value: 'continue',
				description: 'Run in a given session, so the flow remembers its history',
			},
			{
				name: 'Remember by Key',
				value: 'remember',
				description:
					'Start a session for each new key and continue it for later runs with the same key',
			},
		],
		default: 'new',
	},
	{
		displayName: 'Session ID',
		name: 'sessionId',
		type: 'string',
		default: '',
		placeholder: 'e.g. {{ $json.flowSessionId }}',
		displayOptions: { show: { sessionMode: ['continue'] } },
		description:
			'ID of the session to continue: the ID output by BotDojo Create Session, or the flowSessionId of an earlier run',
	},
	{
		displayName: 'Session Key',
		name: 'sessionKey',
		type: 'string',
		default: '={{ $json.sessionId }}',
		displayOptions: { show: { sessionMode: ['remember'] } },
		description:
			"Any text that identifies a conversation, e.g. the sessionId field of a Chat Trigger (the default). The node keeps the BotDojo session of each key in the workflow's static data, which n8n saves for production executions only.",
	},
];

export type SessionChoice =
	| { mode: 'new' }
	| { mode: 'continue'; id: string }
	| { mode: 'remember'; key: string };

export function readSession(ctx: IExecuteFunctions, itemIndex: number): SessionChoice {
	const place = { node: ctx.getNode(), itemIndex };
	const mode = ctx.getNodeParameter('sessionMode', itemIndex, 'new') as string;
	if (mode === 'continue') {
		const id = requireText(
			place,
			'Session ID',
			ctx.getNodeParameter('sessionId', itemIndex, ''),
			`Give the ID of an existing session, e.g. {{ $json.flowSessionId }} of an earlier run. ${NOTHING_SENT}`,
		);
		return { mode: 'continue', id };
	}
	if (mode === 'remember') {
		const key = requireText(
			place,
			'Session Key',
			ctx.getNodeParameter('sessionKey', itemIndex, ''),
			`Give a text that identifies the conversation, e.g. {{ $json.sessionId }} after a Chat Trigger. ${NOTHING_SENT}`,
		);
		return { mode: 'remember', key };
	}
	return { mode: 'new' };
}

interface RememberedSession {
	id: string;
	usedAt: number;
}

/** Keys kept at most; the least recently used are forgotten first. */
const MAX_REMEMBERED = 10_000;

/**
 * The key → session map in the node's static data. Runs with the same key are chained, so the
 * second message of a conversation waits for the first to create its session.
 */
export class RememberedSessions {
	private readonly chains = new Map<string, Promise<unknown>>();

	constructor(private readonly store: IDataObject) {}

	/** Runs `run` with the remembered session of the key (if any) and remembers the one it used. */
	async withSession<T>(
		flowId: string,
		key: string,
		run: (sessionId: string | undefined) => Promise<{ result: T; sessionId?: string }>,
	): Promise<T> {
		const entry = JSON.stringify([flowId, key]);
		const previous = this.chains.get(entry) ?? Promise.resolve();
		const current = previous.then(
			async () => await this.runOnce(entry, run),
			async () => await this.runOnce(entry, run),
		);
		this.chains.set(entry, current);
		try {
			return await current;
		} finally {
			if (this.chains.get(entry) === current) this.chains.delete(entry);
		}
	}

	forget(flowId: string, key: string): void {
		const sessions = this.sessions();
		delete sessions[JSON.stringify([flowId, key])];
		this.store.sessions = sessions;
	}

	private async runOnce<T>(
		entry: string,
		run: (sessionId: string | undefined) => Promise<{ result: T; sessionId?: string }>,
	): Promise<T> {
		const known = this.sessions()[entry] as RememberedSession | undefined;
		const { result, sessionId } = await run(known?.id);
		if (sessionId) this.remember(entry, sessionId);
		return result;
	}

	private sessions(): IDataObject {
		const sessions = this.store.sessions;
		return sessions && typeof sessions === 'object' ? (sessions as IDataObject) : {};
	}

	private remember(entry: string, id: string): void {
		const sessions = this.sessions();
		sessions[entry] = { id, usedAt: Date.now() } as RememberedSession as unknown as IDataObject;
		const keys = Object.keys(sessions);
		if (keys.length > MAX_REMEMBERED) {
			keys
				.sort(
					(a, b) =>
						((sessions[a] as unknown as RememberedSession).usedAt ?? 0) -
						((sessions[b] as unknown as RememberedSession).usedAt ?? 0),
				)
				.slice(0, keys.length - MAX_REMEMBERED)
				.forEach((key) => delete sessions[key]);
		}
		// Assigning marks the static data as changed, so that n8n saves it.
		this.store.sessions = sessions;
	}
}
