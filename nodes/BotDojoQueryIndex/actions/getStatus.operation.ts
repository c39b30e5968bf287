import type { IDataObject, IExecuteFunctions, INodePropertyOptions } from 'n8n-workflow';

import type { Operation } from '../../shared/execution/operation';
import { positionalRequest, resultsOf } from '../../shared/transport';
import { readIndexId } from './indexId';

export const option: INodePropertyOptions = {
	name: 'Get Status',
	value: 'getStatus',
	action: 'Get index status',
	description: 'Read whether the index is ready to answer, and how much it holds',
};

interface Prepared {
	indexId: string;
}

export const operation: Operation<Prepared> = {
	description: [],
	prepare(this: IExecuteFunctions, itemIndex: number): Prepared {
		return { indexId: readIndexId(this, itemIndex) };
	},
	async execute(this: IExecuteFunctions, { indexId }: Prepared, itemIndex: number) {
		const answer = await positionalRequest.call(this, ['indexes', 'getStatus'], [indexId], {
			subject: { indexId },
			itemIndex,
		});
		return resultsOf<IDataObject>(this, answer, ['indexes', 'getStatus'], 'object', itemIndex);
	},
};
