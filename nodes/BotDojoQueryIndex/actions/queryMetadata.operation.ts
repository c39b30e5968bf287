import type { INodeProperties } from 'n8n-workflow';

import { defineOperation } from '../../shared/execution';
import { queryIndexMetadata } from '../../shared/transport/api';
import { parseJsonObject, placeOf } from '../../shared/validation';
import { INDEX_ID, readLocatorId } from '../../shared/params/idLocator';

const QUERY: INodeProperties = {
	displayName: 'Query',
	name: 'query',
	type: 'json',
	default: '{\n  "source": "handbook.pdf"\n}',
	required: true,
	description:
		'A JSON object that the metadata of each chunk must match. Each key is a metadata field; its value is the value to match, or a condition such as {"$in": [...]}, {"$gte": 2}.',
};

export const operation = defineOperation({
	option: {
		name: 'Get Many by Metadata',
		value: 'queryMetadata',
		action: 'Get many chunks by metadata',
		description: 'Find the chunks of the index whose metadata match a query, one item per chunk',
	},
	description: [QUERY],
	prepare(itemIndex) {
		const indexId = readLocatorId(this, INDEX_ID, itemIndex);
		const query = parseJsonObject(
			placeOf(this, itemIndex),
			QUERY.displayName,
			this.getNodeParameter(QUERY.name, itemIndex, '{}'),
			'Give a JSON object of metadata fields to match, e.g. {"source": "handbook.pdf"} or {"page": {"$gte": 2}}.',
		);
		return { indexId, query };
	},
	async execute({ indexId, query }, itemIndex) {
		return await queryIndexMetadata(this, indexId, query, itemIndex);
	},
});
