import type { IExecuteSingleFunctions, INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { positionalPostReceive, positionalPreSend } from '../../shared/transport';
import { parseJsonObject } from '../../shared/validation';
import { indexSubject, readIndexId } from './indexId';

export const option: INodePropertyOptions = {
	name: 'Query Metadata',
	value: 'queryMetadata',
	action: 'Find chunks of an index by their metadata',
	description: 'Returns the chunks of the index whose metadata matches a query, one item per chunk',
	routing: {
		send: {
			preSend: [
				positionalPreSend(['indexes', 'queryMetadata'], function (this: IExecuteSingleFunctions) {
					const query = parseJsonObject(
						{ node: this.getNode(), itemIndex: this.getItemIndex() },
						'Query',
						this.getNodeParameter('query', '{}'),
						'Give a JSON object of metadata fields to match, e.g. {"source": "handbook.pdf"} or {"page": {"$gte": 2}}.',
					);
					return [readIndexId(this), query];
				}),
			],
		},
		output: { postReceive: [positionalPostReceive(indexSubject)] },
	},
};

export const properties: INodeProperties[] = [
	{
		displayName: 'Query',
		name: 'query',
		type: 'json',
		default: '{\n  "source": "handbook.pdf"\n}',
		required: true,
		displayOptions: { show: { operation: ['queryMetadata'] } },
		description:
			'A JSON object that the metadata of each chunk must match. Each key is a metadata field; its value is the value to match, or a condition such as {"$in": [...]}, {"$gte": 2}.',
	},
];
