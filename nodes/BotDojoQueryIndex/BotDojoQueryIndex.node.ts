import type { INodeType, INodeTypeDescription } from 'n8n-workflow';

import { executeOperations, operationList, operationParameters } from '../shared/execution';
import { idLocatorProperty, INDEX_ID } from '../shared/params/idLocator';
import { nodeHeader, operationSubtitle } from '../shared/params/nodeHeader';
import { operation as getStatus } from './actions/getStatus.operation';
import { operation as queryMetadata } from './actions/queryMetadata.operation';

const operations = [getStatus, queryMetadata];

export class BotDojoQueryIndex implements INodeType {
	description: INodeTypeDescription = {
		...nodeHeader({
			title: 'Query Index',
			name: 'botDojoQueryIndex',
			description: 'Read the status of a BotDojo vector index, or find its chunks by metadata',
		}),
		icon: {
			light: 'file:../shared/icons/botdojo.svg',
			dark: 'file:../shared/icons/botdojo.dark.svg',
		},
		subtitle: operationSubtitle(operations, { parameter: 'indexId', name: 'Index ID' }),
		usableAsTool: true,
		// For n8n's AI Workflow Builder (n8n 2.x); older n8n ignores the field.
		builderHint: {
			searchHint:
				'Reads whether a BotDojo vector index is ready, or lists its chunks whose metadata match a JSON query.',
		},
		properties: [
			operationList(operations),
			idLocatorProperty(
				INDEX_ID,
				'ID of the vector index in your BotDojo project. Open the index under Indexes in BotDojo; its ID is shown on the index page.',
			),
			...operationParameters(operations),
		],
	};

	execute = executeOperations(operations);
}
