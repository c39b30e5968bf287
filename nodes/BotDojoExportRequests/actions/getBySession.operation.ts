import {
	NodeOperationError,
	type IDataObject,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeProperties,
	type INodePropertyOptions,
} from 'n8n-workflow';

import { readFlowId } from '../../shared/flowId';
import { positionalRequest, unwrapResults } from '../../shared/transport';
import { requireText } from '../../shared/validation';
import { placeOf } from './itemInput';

export const option: INodePropertyOptions = {
	name: 'Get by Session',
	value: 'getBySession',
	action: 'Get the requests of a session',
	description: 'Read every request of one flow session, in order, one item per request',
};

const show = { show: { operation: ['getBySession'] } };

export const properties: INodeProperties[] = [
	{
		displayName: 'Session ID',
		name: 'sessionId',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. ses_1a2b3c4d',
		displayOptions: show,
		description:
			'The flow session to read: the flow_session_id of a flow request, or the ID returned by BotDojo Create Session',
	},
	{
		displayName: 'Options',
		name: 'sessionOptions',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		displayOptions: show,
		options: [
			{
				displayName: 'As One Conversation',
				name: 'asOneConversation',
				type: 'boolean',
				default: false,
				description:
					'Whether to return a single item { flowId, sessionId, messages } instead of one item per request. Messages ({ role, content, date }) are the user message and the answer of each request, in order; a request without an answer (e.g. failed) adds only its user message.',
			},
		],
	},
];

interface ConversationMessage extends IDataObject {
	role: string;
	content: string;
	date: string | null;
}

/** The message of a request, or undefined when it has none (or an empty one). */
function messageOf(
	record: IDataObject,
	field: string,
	role: string,
): ConversationMessage | undefined {
	const message = record[field] as IDataObject | undefined;
	if (!message || typeof message !== 'object') return undefined;
	const content = message.content;
	if (typeof content !== 'string' || content === '') return undefined;
	return {
		role: typeof message.role === 'string' && message.role ? message.role : role,
		content,
		date: typeof message.date === 'string' ? message.date : null,
	};
}

export function conversationOf(records: IDataObject[]): ConversationMessage[] {
	const messages: ConversationMessage[] = [];
	for (const record of records) {
		const asked = messageOf(record, 'userMessage', 'user');
		const answered = messageOf(record, 'aiMessage', 'assistant');
		if (asked) messages.push(asked);
		if (answered) messages.push(answered);
	}
	return messages;
}

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	output: INodeExecutionData[],
): Promise<void> {
	const flowId = readFlowId(this, itemIndex);
	const sessionId = requireText(
		placeOf(this, itemIndex),
		'Session ID',
		this.getNodeParameter('sessionId', itemIndex, ''),
		'Enter the ID of a session of this flow, e.g. the flow_session_id of a flow request.',
	);
	const asOneConversation =
		this.getNodeParameter('sessionOptions.asOneConversation', itemIndex, false) === true;

	const answer = unwrapResults(
		await positionalRequest.call(
			this,
			['flow_requests', 'loadByFlowSession'],
			[flowId, sessionId],
			{
				subject: { flowId, sessionId },
				itemIndex,
			},
		),
	);
	if (!Array.isArray(answer)) {
		throw new NodeOperationError(this.getNode(), 'BotDojo answered without a list of requests', {
			itemIndex,
			description: `Expected a list of flow requests for session "${sessionId}"; got ${JSON.stringify(answer)?.slice(0, 200)}.`,
		});
	}
	const records = answer as IDataObject[];
	if (asOneConversation) {
		output.push({
			json: { flowId, sessionId, messages: conversationOf(records) },
			pairedItem: { item: itemIndex },
		});
		return;
	}
	for (const record of records) output.push({ json: record, pairedItem: { item: itemIndex } });
}
