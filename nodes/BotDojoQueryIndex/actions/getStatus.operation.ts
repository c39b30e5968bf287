import type { IDataObject, IExecuteFunctions, INodePropertyOptions } from 'n8n-workflow';

import type { Operation } from '../../shared/execution/operation';
import { positionalResults } from '../../shared/transport';
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
		return (await positionalResults.call(this, ['indexes', 'getStatus'], [indexId], {
			subject: { indexId },
			itemIndex,
		})) as IDataObject;
	},
};
