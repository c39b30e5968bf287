import {
	updateDisplayOptions,
	type IDataObject,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeProperties,
	type INodePropertyOptions,
} from 'n8n-workflow';

import type { Operation } from '../../shared/execution/operation';
import { positionalResults } from '../../shared/transport';
import { readLookupPath } from './logicalPath';
import { placeOf } from '../../shared/validation';

export const option: INodePropertyOptions = {
	name: 'Get by Logical Path',
	value: 'getByLogicalPath',
	action: 'Get document by logical path',
	description: 'Read the record of the latest version of the document stored under a path',
};

const properties: INodeProperties[] = [
	{
		displayName: 'Logical Path',
		name: 'logicalPath',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. docs/handbook.pdf',
		description: 'The logical path the document was uploaded under',
	},
];

export interface LookupRequest {
	logicalPath: string;
}

function prepare(this: IExecuteFunctions, itemIndex: number): LookupRequest {
	return {
		logicalPath: readLookupPath(
			placeOf(this, itemIndex),
			'Logical Path',
			this.getNodeParameter('logicalPath', itemIndex, ''),
		),
	};
}

async function execute(
	this: IExecuteFunctions,
	request: LookupRequest,
	itemIndex: number,
): Promise<INodeExecutionData[]> {
	const record = await loadByLogicalPath.call(this, request.logicalPath, itemIndex);
	return [{ json: record, pairedItem: { item: itemIndex } }];
}

/** The document record stored under a logical path (one positional call). */
export async function loadByLogicalPath(
	this: IExecuteFunctions,
	logicalPath: string,
	itemIndex: number,
): Promise<IDataObject> {
	return (await positionalResults.call(this, ['documents', 'loadByLogicalPath'], [logicalPath], {
		itemIndex,
		subject: { logicalPath },
		abortSignal: this.getExecutionCancelSignal(),
	})) as IDataObject;
}

export const operation: Operation<LookupRequest> = {
	description: updateDisplayOptions({ show: { operation: ['getByLogicalPath'] } }, properties),
	prepare,
	execute,
};
