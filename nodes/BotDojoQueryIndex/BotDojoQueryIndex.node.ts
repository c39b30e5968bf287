import {
	NodeConnectionTypes,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeType,
	type INodeTypeDescription,
} from 'n8n-workflow';

import { routeOperation } from '../shared/execution/runner';
import * as getStatus from './actions/getStatus.operation';
import { indexIdField } from './actions/indexId';
import * as queryMetadata from './actions/queryMetadata.operation';

const operations = { getStatus: getStatus.operation, queryMetadata: queryMetadata.operation };

export class BotDojoQueryIndex implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'BotDojo Query Index',
		name: 'botDojoQueryIndex',
		icon: {
			light: 'file:../shared/icons/botdojo.svg',
			dark: 'file:../shared/icons/botdojo.dark.svg',
		},
		group: ['transform'],
		version: 1,
		subtitle:
			'={{ $parameter["operation"] === "getStatus" ? "Get status of " : "Query " }}{{ $parameter["indexId"] }}',
		description: 'Read the status of a BotDojo vector index, or find its chunks by metadata',
		defaults: { name: 'BotDojo Query Index' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'botDojoApi', required: true }],
		properties: [
			{
				displayName: 'Operation',
				name: 'operation',
				type: 'options',
				noDataExpression: true,
				options: [getStatus.option, queryMetadata.option],
				default: 'getStatus',
			},
			indexIdField,
			...getStatus.operation.description,
			...queryMetadata.operation.description,
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await routeOperation.call(this, operations);
	}
}
