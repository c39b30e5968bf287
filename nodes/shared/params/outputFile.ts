/** The output binary field of an operation that outputs a file, as n8n's own nodes name it. */
import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { requireTextParameter } from '../validation';

export function outputFileProperty(
	name: string,
	displayOptions: INodeProperties['displayOptions'],
): INodeProperties {
	return {
		displayName: 'Put Output File in Field',
		name,
		type: 'string',
		default: 'data',
		required: true,
		hint: 'The name of the output binary field to put the file in',
		displayOptions,
	};
}

/** The field named by the item's parameter, which must not be empty. */
export function readOutputFileField(
	ctx: IExecuteFunctions,
	property: INodeProperties,
	itemIndex: number,
): string {
	const valid = 'Enter the name of the binary field to put the file in, e.g. data.';
	return requireTextParameter(ctx, property, itemIndex, valid);
}
