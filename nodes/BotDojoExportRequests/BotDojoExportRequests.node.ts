/*
 * Programmatic, not declarative: an export follows cursors page after page with guards against
 * pagination that makes no progress, stops at a limit mid-way and can hand out a resume cursor;
 * declarative routing would merge pages without those checks. Get by Session shares the same
 * execute so the node keeps one style.
 */
import {
	ExecutionBaseError,
	NodeConnectionTypes,
	NodeOperationError,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeType,
	type INodeTypeDescription,
} from 'n8n-workflow';

import * as exportRequests from './actions/export.operation';
import { flowIdField } from './actions/flowId';
import * as getBySession from './actions/getBySession.operation';

export class BotDojoExportRequests implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'BotDojo Export Requests',
		name: 'botDojoExportRequests',
		icon: {
			light: 'file:../shared/icons/botdojo.svg',
			dark: 'file:../shared/icons/botdojo.dark.svg',
		},
		group: ['transform'],
		version: 1,
		subtitle:
			'={{ $parameter["operation"] === "getBySession" ? "Session " + $parameter["sessionId"] : "Export " + $parameter["flowId"] }}',
		description: 'Export the requests of a BotDojo flow, or read the requests of one session',
		defaults: { name: 'BotDojo Export Requests' },
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
				options: [exportRequests.option, getBySession.option],
				default: 'export',
			},
			flowIdField,
			...exportRequests.properties,
			...getBySession.properties,
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const operation = this.getNodeParameter('operation', 0) as string;
		const run = operation === 'getBySession' ? getBySession.execute : exportRequests.execute;
		const output: INodeExecutionData[] = [];
		const itemCount = this.getInputData().length;
		for (let itemIndex = 0; itemIndex < itemCount; itemIndex++) {
			const before = output.length;
			try {
				await run.call(this, itemIndex, output);
			} catch (error) {
				if (!this.continueOnFail()) throw asNodeError(this, error, itemIndex);
				// Records of this item read before the failure are dropped: the item failed as a whole.
				output.length = before;
				output.push({ json: { error: (error as Error).message }, pairedItem: { item: itemIndex } });
			}
		}
		return [output];
	}
}

/** n8n's own errors (API, operation, expression) pass as they are; anything else is wrapped. */
function asNodeError(ctx: IExecuteFunctions, error: unknown, itemIndex: number) {
	return error instanceof ExecutionBaseError
		? error
		: new NodeOperationError(ctx.getNode(), error as Error, { itemIndex });
}
