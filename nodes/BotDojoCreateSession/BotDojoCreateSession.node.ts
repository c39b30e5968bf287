import type { INodeType, INodeTypeDescription } from 'n8n-workflow';

import { executeOperations } from '../shared/execution';
import { nodeHeader, operationSubtitle } from '../shared/params/nodeHeader';
import { operation } from './actions/create.operation';

export class BotDojoCreateSession implements INodeType {
	description: INodeTypeDescription = {
		...nodeHeader({
			title: 'Create Session',
			name: 'botDojoCreateSession',
			description:
				'Start a BotDojo flow session ahead of time, with data the flow can read from its first message',
			// 1.1: Simplify is on by default; version 1 keeps the whole session record.
			version: [1, 1.1],
			defaultVersion: 1.1,
		}),
		icon: {
			light: 'file:../shared/icons/botdojo.svg',
			dark: 'file:../shared/icons/botdojo.dark.svg',
		},
		subtitle: operationSubtitle([operation], { parameter: 'flowId', name: 'Flow ID' }),
		// Starting a session is a workflow step, not something an AI Agent should pick as a tool.
		usableAsTool: undefined,
		// For n8n's AI Workflow Builder (n8n 2.x); older n8n ignores the field.
		builderHint: {
			searchHint:
				'Starts a BotDojo session holding data the flow can read (sessionState); its flowSessionId goes to Run Flow Session Continue Session, so several runs share one memory.',
		},
		properties: operation.description,
	};

	execute = executeOperations([operation]);
}
