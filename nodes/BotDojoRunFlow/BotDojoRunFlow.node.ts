import type { INodeType, INodeTypeDescription } from 'n8n-workflow';

import { executeOperations } from '../shared/execution';
import { nodeHeader, operationSubtitle } from '../shared/params/nodeHeader';
import { operation as run, runFlowInputs } from './actions/run.operation';

export class BotDojoRunFlow implements INodeType {
	description: INodeTypeDescription = {
		...nodeHeader({
			title: 'Run Flow',
			name: 'botDojoRunFlow',
			description:
				'Run a BotDojo AI flow and get its answer, streaming tokens live and keeping chat sessions',
			// 1.1: without the settings and output fields kept for saved workflows (LEGACY_FIELDS_UNTIL).
			version: [1, 1.1],
		}),
		icon: {
			light: 'file:../shared/icons/botdojo.svg',
			dark: 'file:../shared/icons/botdojo.dark.svg',
		},
		subtitle: operationSubtitle([run], { parameter: 'flowId', name: 'Flow ID' }),
		usableAsTool: true,
		// A Chat Memory input appears only in the session mode that uses it.
		inputs: runFlowInputs,
		// For n8n's AI Workflow Builder (n8n 2.x); older n8n ignores the field.
		builderHint: {
			searchHint:
				'Runs a hosted BotDojo AI flow with a message and outputs its answer as text. After a Chat Trigger: Message expr($json.chatInput), Session Remember by Key with expr($json.sessionId); the tokens stream to the chat.',
			inputs: {
				ai_memory: { required: true, displayOptions: { show: { sessionMode: ['memory'] } } },
			},
			relatedNodes: [
				{
					nodeType: '@n8n/n8n-nodes-langchain.chatTrigger',
					relationHint:
						'Chat with a BotDojo flow: chatInput is the Message, sessionId the Session Key',
				},
				{
					nodeType: '@n8n/n8n-nodes-langchain.memoryRedisChat',
					relationHint: 'Session Keep in Chat Memory (queue mode) needs it on the memory() input',
				},
				{
					nodeType: '@n8n/n8n-nodes-langchain.memoryPostgresChat',
					relationHint: 'Session Keep in Chat Memory (queue mode) needs it on the memory() input',
				},
				{
					nodeType: 'n8n-nodes-botdojo.botDojoCreateSession',
					relationHint: 'Starts a session with data; its flowSessionId goes to Session ID',
				},
			],
		},
		properties: [
			{
				displayName: 'Description',
				name: 'toolDescription',
				type: 'string',
				typeOptions: { rows: 3 },
				default:
					'Runs a BotDojo AI flow with a message and returns its answer as text. Replace this with what the flow does and when to use it.',
				required: true,
				displayOptions: { show: { '@tool': [true] } },
				description:
					'Tells the AI Agent what the flow does and when to call it. A specific description makes the agent use the tool well.',
			},
			...run.description,
		],
	};

	execute = executeOperations([run]);
}
