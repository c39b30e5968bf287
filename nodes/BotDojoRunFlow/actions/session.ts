/**
 * Which BotDojo session a run uses: a new one, a given one, or the one remembered for a key
 * (e.g. a Chat Trigger's sessionId; see sessionStore.ts for where it is kept).
 */
import { NodeOperationError, type IExecuteFunctions, type INodeProperties } from 'n8n-workflow';

import { requireTextParameter } from '../../shared/validation';
import { assertRememberedMapVisible } from '../helpers/rememberedRun';
import { NOTHING_SENT } from './input';

const SESSION_ID: INodeProperties = {
	displayName: 'Session ID',
	name: 'sessionId',
	type: 'string',
	default: '',
	placeholder: 'e.g. {{ $json.flowSessionId }}',
	displayOptions: { show: { sessionMode: ['continue'] } },
	description:
		'ID of the session to continue: the ID output by BotDojo Create Session, or the flowSessionId of an earlier run',
};

const SESSION_KEY: INodeProperties = {
	displayName: 'Session Key',
	name: 'sessionKey',
	type: 'string',
	default: '={{ $json.sessionId }}',
	displayOptions: { show: { sessionMode: ['remember'] } },
	builderHint: {
		propertyHint: 'Keep expr($json.sessionId) after a Chat Trigger: one BotDojo session per chat',
	},
	description:
		"Any text that identifies a conversation, e.g. the sessionId field of a Chat Trigger (the default). One n8n (regular mode) keeps the BotDojo session of each key in its memory and in the workflow's static data, saved by production executions and read back after a restart. Queue-mode workers refuse it: use Keep in Chat Memory there. The output's session field says whether the run continued, started or replaced a session.",
};

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
					'Start a session for each new key and continue it for later runs with the same key. One n8n only: queue-mode workers refuse it.',
			},
			{
				name: 'Keep in Chat Memory',
				value: 'memory',
				description:
					"Keep each conversation's session in the chat memory connected below (Redis or Postgres Chat Memory): works in queue mode, whichever worker runs a message",
			},
		],
		default: 'new',
		builderHint: {
			propertyHint:
				'remember (Session Key expr($json.sessionId)) for a chat on one n8n (refused on queue-mode workers); memory only with a Redis or Postgres Chat Memory on the memory() input (works in queue mode); continue with a flowSessionId from Create Session',
		},
	},
	SESSION_ID,
	SESSION_KEY,
];

export type SessionChoice =
	| { mode: 'new' }
	| { mode: 'continue'; id: string }
	| { mode: 'remember'; key: string }
	| { mode: 'memory' };

export function readSession(ctx: IExecuteFunctions, itemIndex: number): SessionChoice {
	const mode = ctx.getNodeParameter('sessionMode', itemIndex, 'new') as string;
	if (mode === 'continue') {
		const valid =
			'Give the ID of an existing session, e.g. {{ $json.flowSessionId }} of an earlier run.';
		const id = requireTextParameter(ctx, SESSION_ID, itemIndex, `${valid} ${NOTHING_SENT}`);
		return { mode: 'continue', id };
	}
	if (mode === 'remember') {
		const valid = `Give a text that identifies the conversation, e.g. {{ $json.sessionId }} after a Chat Trigger.`;
		const key = requireTextParameter(ctx, SESSION_KEY, itemIndex, `${valid} ${NOTHING_SENT}`);
		assertRememberedMapVisible(ctx, itemIndex);
		return { mode: 'remember', key };
	}
	if (mode === 'memory') {
		// n8n's tool variant of a node (AI Agent tool) has no inputs, so no Memory input either.
		if (ctx.getNode().type.endsWith('Tool')) {
			throw new NodeOperationError(
				ctx.getNode(),
				'Session: Keep in Chat Memory is not available when the node is an AI Agent tool',
				{
					itemIndex,
					description: `A tool has no Memory input. Choose Remember by Key (one n8n in regular mode) or New Session. ${NOTHING_SENT}`,
				},
			);
		}
		return { mode: 'memory' };
	}
	return { mode: 'new' };
}

/** The node's inputs: a Memory input only for Session "Keep in Chat Memory". */
export const runFlowInputs = `={{ $parameter.sessionMode === 'memory' ? ['main', { type: 'ai_memory', displayName: 'Memory', maxConnections: 1, required: true }] : ['main'] }}`;
