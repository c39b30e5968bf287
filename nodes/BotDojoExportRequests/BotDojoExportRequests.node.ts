/*
 * Programmatic, not declarative: an export follows cursors page after page with guards against
 * pagination that makes no progress, stops at a limit mid-way and can hand out a resume cursor;
 * declarative routing would merge pages without those checks. Get by Session shares the same
 * execute so the node keeps one style.
 */
import {
	NodeConnectionTypes,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeType,
	type INodeTypeDescription,
} from 'n8n-workflow';

import { flowIdProperty } from '../shared/flowId';
import { routeOperation } from '../shared/execution/runner';
import * as exportRequests from './actions/export.operation';
import * as getBySession from './actions/getBySession.operation';
import { credentialTest } from '../shared/transport';

// Deliberately not an AI Agent tool (see usableAsTool below); n8n makes a tool only when it is set.
// eslint-disable-next-line @n8n/community-nodes/node-usable-as-tool
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
		// Reads the same whatever Flow ID holds (empty, an expression, a locator).
		subtitle:
			'={{ $parameter["operation"] === "getBySession" ? "Get requests of session" : "Export flow requests" }}',
		description: 'Export the requests of a BotDojo flow, or read the requests of one session',
		defaults: { name: 'BotDojo Export Requests' },
		// Not an AI Agent tool: an export can return thousands of records into the agent's context.
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'botDojoApi', required: true, testedBy: 'botDojoApiTest' }],
		properties: [
			{
				displayName: 'Operation',
				name: 'operation',
				type: 'options',
				noDataExpression: true,
				options: [exportRequests.option, getBySession.option],
				default: 'export',
			},
			flowIdProperty(
				"ID of the flow whose requests to read. It is shown in the flow's address in BotDojo and on its API tab.",
			),
			...exportRequests.operation.description,
			...getBySession.operation.description,
		],
	};

	methods = { credentialTest };

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await routeOperation.call(this, {
			export: exportRequests.operation,
			getBySession: getBySession.operation,
		});
	}
}
