import { defineOperation } from '../../shared/execution';
import { getIndexStatus } from '../../shared/transport/api';
import { INDEX_ID, readLocatorId } from '../../shared/params/idLocator';

export const operation = defineOperation({
	option: {
		name: 'Get Status',
		value: 'getStatus',
		action: 'Get index status',
		description: 'Read whether the index is ready to answer, and how much it holds',
	},
	description: [],
	prepare(itemIndex) {
		return readLocatorId(this, INDEX_ID, itemIndex);
	},
	async execute(indexId, itemIndex) {
		return await getIndexStatus(this, indexId, itemIndex);
	},
});
