import type { IExecuteFunctions } from 'n8n-workflow';

import type { Operation } from '../../shared/execution/operation';
import { getIndexStatus } from '../../shared/transport/api';
import { readIndexId } from './indexId';

export const operation: Operation<string> = {
	option: {
		name: 'Get Status',
		value: 'getStatus',
		action: 'Get index status',
		description: 'Read whether the index is ready to answer, and how much it holds',
	},
	description: [],
	prepare(this: IExecuteFunctions, itemIndex: number): string {
		return readIndexId(this, itemIndex);
	},
	async execute(this: IExecuteFunctions, indexId: string, itemIndex: number) {
		return await getIndexStatus(this, indexId, itemIndex);
	},
};
