import type { IExecuteSingleFunctions, INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { positionalPostReceive, positionalPreSend } from '../../shared/transport';
import { indexSubject, readIndexId } from './indexId';

export const option: INodePropertyOptions = {
	name: 'Get Status',
	value: 'getStatus',
	action: 'Get the status of an index',
	description: 'Whether the index is ready to answer, and how much it holds',
	routing: {
		send: {
			preSend: [
				positionalPreSend(['indexes', 'getStatus'], function (this: IExecuteSingleFunctions) {
					return [readIndexId(this)];
				}),
			],
		},
		output: { postReceive: [positionalPostReceive(indexSubject)] },
	},
};

export const properties: INodeProperties[] = [];
