import {
	updateDisplayOptions,
	type IDataObject,
	type IExecuteFunctions,
	type INodeProperties,
	type INodePropertyOptions,
} from 'n8n-workflow';

import type { Operation } from '../../shared/execution/operation';
import { positionalResults } from '../../shared/transport';
import { parseJsonObject, placeOf } from '../../shared/validation';
import { readIndexId } from './indexId';

export const option: INodePropertyOptions = {
	name: 'Query Metadata',
	value: 'queryMetadata',
	action: 'Find index chunks by metadata',
	description: 'Find the chunks of the index whose metadata match a query, one item per chunk',
};

const properties: INodeProperties[] = [
	{
		displayName: 'Query',
		name: 'query',
		type: 'json',
		default: '{\n  "source": "handbook.pdf"\n}',
		required: true,
		description:
			'A JSON object that the metadata of each chunk must match. Each key is a metadata field; its value is the value to match, or a condition such as {"$in": [...]}, {"$gte": 2}.',
	},
];

interface Prepared {
	indexId: string;
	query: IDataObject;
}

export const operation: Operation<Prepared> = {
	description: updateDisplayOptions({ show: { operation: ['queryMetadata'] } }, properties),
	prepare(this: IExecuteFunctions, itemIndex: number): Prepared {
		const indexId = readIndexId(this, itemIndex);
		const query = parseJsonObject(
			placeOf(this, itemIndex),
			'Query',
			this.getNodeParameter('query', itemIndex, '{}'),
			'Give a JSON object of metadata fields to match, e.g. {"source": "handbook.pdf"} or {"page": {"$gte": 2}}.',
		);
		return { indexId, query };
	},
	async execute(this: IExecuteFunctions, { indexId, query }: Prepared, itemIndex: number) {
		return (await positionalResults.call(this, ['indexes', 'queryMetadata'], [indexId, query], {
			subject: { indexId },
			itemIndex,
		})) as IDataObject[];
	},
};
