import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { requireText } from '../../shared/validation';

export const indexIdField: INodeProperties = {
	displayName: 'Index ID',
	name: 'indexId',
	type: 'string',
	default: '',
	required: true,
	placeholder: 'e.g. idx_docs',
	description:
		'ID of the vector index in your BotDojo project. Open the index under Indexes in BotDojo; its ID is shown on the index page and in its address.',
};

export function readIndexId(ctx: IExecuteFunctions, itemIndex: number): string {
	return requireText(
		{ node: ctx.getNode(), itemIndex },
		'Index ID',
		ctx.getNodeParameter('indexId', itemIndex, ''),
		'Enter the ID of an index of this project, e.g. idx_docs.',
	);
}
