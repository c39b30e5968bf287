import {
	NodeConnectionTypes,
	type IExecuteSingleFunctions,
	type INodeType,
	type INodeTypeDescription,
} from 'n8n-workflow';

import { positionalPostReceive, positionalPreSend } from '../shared/transport';
import { requireText } from '../shared/validation';
import { readSessionData, sessionDataProperties } from './actions/sessionData';

function readFlowId(ctx: IExecuteSingleFunctions): string {
	return requireText(
		{ node: ctx.getNode(), itemIndex: ctx.getItemIndex() },
		'Flow ID',
		ctx.getNodeParameter('flowId', ''),
		"Enter the ID of a flow of this project (shown in the flow's address and on its API tab).",
	);
}

export class BotDojoCreateSession implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'BotDojo Create Session',
		name: 'botDojoCreateSession',
		icon: {
			light: 'file:../shared/icons/botdojo.svg',
			dark: 'file:../shared/icons/botdojo.dark.svg',
		},
		group: ['transform'],
		version: 1,
		subtitle: '={{ "Session for " + $parameter["flowId"] }}',
		description:
			'Start a BotDojo flow session ahead of time, with data the flow can read from its first message',
		defaults: { name: 'BotDojo Create Session' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'botDojoApi', required: true }],
		requestDefaults: { json: true },
		properties: [
			{
				displayName: 'Flow ID',
				name: 'flowId',
				type: 'string',
				default: '',
				required: true,
				placeholder: 'e.g. flow_echo',
				description:
					"The flow the session is for. Pass the output's ID to BotDojo Run Flow (Session: Continue) to run the flow in this session.",
				routing: {
					send: {
						preSend: [
							positionalPreSend(
								['flow_sessions', 'createSession'],
								function (this: IExecuteSingleFunctions) {
									const flowId = readFlowId(this);
									return [flowId, readSessionData(this) ?? {}];
								},
							),
						],
					},
					output: {
						postReceive: [
							positionalPostReceive(function (this: IExecuteSingleFunctions) {
								return { flowId: String(this.getNodeParameter('flowId', '')) };
							}),
						],
					},
				},
			},
			...sessionDataProperties,
		],
	};
}
