import {
	NodeConnectionTypes,
	NodeOperationError,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeType,
	type INodeTypeDescription,
} from 'n8n-workflow';

import { asNodeError, errorItem, isNodeError } from '../shared/itemErrors';
import * as getByLogicalPath from './actions/getByLogicalPath.operation';
import * as getDownloadLink from './actions/getDownloadLink.operation';
import * as upload from './actions/upload.operation';

/**
 * Each operation checks an item's input without sending anything (prepare), then sends what
 * prepare returned (execute); `never` because each operation takes its own kind of request.
 */
interface Operation {
	prepare(this: IExecuteFunctions, itemIndex: number): unknown;
	execute(
		this: IExecuteFunctions,
		request: never,
		itemIndex: number,
	): Promise<INodeExecutionData[]>;
}

const operations: Record<string, Operation> = { upload, getByLogicalPath, getDownloadLink };

export class BotDojoUploadDocument implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'BotDojo Upload Document',
		name: 'botDojoUploadDocument',
		icon: {
			light: 'file:../shared/icons/botdojo.svg',
			dark: 'file:../shared/icons/botdojo.dark.svg',
		},
		group: ['transform'],
		version: 1,
		subtitle:
			'={{ $parameter["operation"] === "upload" ? "Upload to " + $parameter["logicalPath"] : $parameter["operation"] === "getByLogicalPath" ? "Get " + $parameter["logicalPath"] : "Get download link" }}',
		description:
			'Upload files to a BotDojo project as documents, look them up by path and get temporary download links',
		defaults: { name: 'BotDojo Upload Document' },
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
				options: [upload.option, getByLogicalPath.option, getDownloadLink.option],
				default: 'upload',
			},
			...upload.properties,
			...getByLogicalPath.properties,
			...getDownloadLink.properties,
		],
	};

	/**
	 * Every item's input is checked before the first request, so a bad item stops the node
	 * before anything was uploaded (or, with Continue On Fail, becomes an error item).
	 */
	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		const operationName = this.getNodeParameter('operation', 0) as string;
		const operation = operations[operationName];
		if (!operation) {
			throw new NodeOperationError(this.getNode(), `Unknown operation "${operationName}"`);
		}
		const requests: unknown[] = [];
		for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
			try {
				requests.push(await operation.prepare.call(this, itemIndex));
			} catch (error) {
				if (!this.continueOnFail()) throw asNodeError(this, error, itemIndex);
				requests.push(asNodeError(this, error, itemIndex));
			}
		}

		const output: INodeExecutionData[] = [];
		for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
			const request = requests[itemIndex];
			try {
				if (isNodeError(request)) throw request;
				output.push(...(await operation.execute.call(this, request as never, itemIndex)));
			} catch (error) {
				if (!this.continueOnFail()) throw asNodeError(this, error, itemIndex);
				output.push(errorItem(asNodeError(this, error, itemIndex), itemIndex));
			}
		}
		return [output];
	}
}
