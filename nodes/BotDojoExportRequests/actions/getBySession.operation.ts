import type { INodeProperties } from 'n8n-workflow';

import { defineOperation } from '../../shared/execution';
import { readFlowId } from '../../shared/params/idLocator';
import {
	simplifyFlowRequest,
	simplifyProperties,
	SIMPLIFY_REQUESTS_DESCRIPTION,
} from '../../shared/params/simplify';
import { loadRequestsBySession, type FlowRequestRecord } from '../../shared/transport/api';
import { requireTextParameter } from '../../shared/validation';

const SESSION_ID: INodeProperties = {
	displayName: 'Session ID',
	name: 'sessionId',
	type: 'string',
	default: '',
	required: true,
	placeholder: 'e.g. ses_1a2b3c4d',
	description:
		'The flow session to read: the flow_session_id of a flow request, or the ID returned by BotDojo Create Session',
};

const properties: INodeProperties[] = [
	SESSION_ID,
	...simplifyProperties(
		`${SIMPLIFY_REQUESTS_DESCRIPTION}. As One Conversation gives its messages either way.`,
	),
	{
		displayName: 'Options',
		name: 'sessionOptions',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
			{
				displayName: 'As One Conversation',
				name: 'asOneConversation',
				type: 'boolean',
				default: false,
				description:
					'Whether to return a single item { flowId, sessionId, messages } instead of one item per request. Messages ({ role, content, date }) are the user message and the answer of each request, in order; a request without an answer (e.g. one that ended with an error) adds only its user message.',
			},
		],
	},
];

/** The message of a request ({ role, content, date }), or undefined when it has none (or an
 *  empty one). */
function messageOf(record: FlowRequestRecord, field: 'userMessage' | 'aiMessage', role: string) {
	const message = record[field];
	if (!message || typeof message !== 'object') return undefined;
	const { content } = message;
	if (typeof content !== 'string' || content === '') return undefined;
	return {
		role: typeof message.role === 'string' && message.role ? message.role : role,
		content,
		date: typeof message.date === 'string' ? message.date : null,
	};
}

export const operation = defineOperation({
	option: {
		name: 'Get Many by Session',
		value: 'getBySession',
		action: 'Get many requests of a session',
		description: 'Read every request of one flow session, in order, one item per request',
	},
	description: properties,
	prepare(itemIndex) {
		const flowId = readFlowId(this, itemIndex);
		const sessionId = requireTextParameter(
			this,
			SESSION_ID,
			itemIndex,
			'Enter the ID of a session of this flow, e.g. the flow_session_id of a flow request.',
		);
		const asOneConversation =
			this.getNodeParameter('sessionOptions.asOneConversation', itemIndex, false) === true;
		const simplify = this.getNodeParameter('simplify', itemIndex, false) === true;
		return { flowId, sessionId, asOneConversation, simplify };
	},
	async execute({ flowId, sessionId, asOneConversation, simplify }, itemIndex) {
		const records = await loadRequestsBySession(this, flowId, sessionId, itemIndex);
		if (asOneConversation) {
			const messages = records.flatMap((record) =>
				[
					messageOf(record, 'userMessage', 'user'),
					messageOf(record, 'aiMessage', 'assistant'),
				].filter((message) => message !== undefined),
			);
			return { flowId, sessionId, messages };
		}
		return simplify ? records.map(simplifyFlowRequest) : records;
	},
});
