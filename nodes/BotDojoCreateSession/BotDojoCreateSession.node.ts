import {
	NodeConnectionTypes,
	type IExecuteSingleFunctions,
	type INodeType,
	type INodeTypeDescription,
} from 'n8n-workflow';

import { flowIdProperty, requireFlowId } from '../shared/flowId';
import { positionalPostReceive, positionalPreSend } from '../shared/transport';
import { readSessionData, sessionDataProperties } from './actions/sessionData';

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
				...flowIdProperty(
					"The flow the session is for. Pass the output's ID to BotDojo Run Flow (Session: Continue) to run the flow in this session.",
				),
				routing: {
					send: {
						preSend: [
							positionalPreSend(
								['flow_sessions', 'createSession'],
								function (this: IExecuteSingleFunctions) {
									const flowId = requireFlowId(
										{ node: this.getNode(), itemIndex: this.getItemIndex() },
										this.getNodeParameter('flowId', ''),
									);
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
