/*
 * Programmatic, not declarative: an export follows cursors page after page with guards against
 * pagination that makes no progress, stops at a limit mid-way and can hand out a resume cursor;
 * declarative routing would merge pages without those checks. Get Many by Session goes through the
 * same router, so the node keeps one style.
 */
import type { INodeType, INodeTypeDescription } from 'n8n-workflow';

import { executeOperations, operationList, operationParameters } from '../shared/execution';
import { flowIdProperty } from '../shared/params/idLocator';
import { nodeHeader, operationSubtitle } from '../shared/params/nodeHeader';
import { operation as exportRequests } from './actions/export.operation';
import { operation as getBySession } from './actions/getBySession.operation';

const operations = [exportRequests, getBySession];

export class BotDojoExportRequests implements INodeType {
	description: INodeTypeDescription = {
		...nodeHeader({
			title: 'Export Requests',
			name: 'botDojoExportRequests',
			description: 'Export the requests of a BotDojo flow, or read the requests of one session',
			// 1.1: Simplify is on by default; version 1 keeps the whole records.
			version: [1, 1.1],
			defaultVersion: 1.1,
		}),
		icon: {
			light: 'file:../shared/icons/botdojo.svg',
			dark: 'file:../shared/icons/botdojo.dark.svg',
		},
		subtitle: operationSubtitle(operations, { parameter: 'flowId', name: 'Flow ID' }),
		// Not an AI Agent tool: an export can return thousands of records into the agent's context.
		usableAsTool: undefined,
		// For n8n's AI Workflow Builder (n8n 2.x); older n8n ignores the field.
		builderHint: {
			searchHint:
				'Reads the finished requests (question, answer, status, timings) of a BotDojo flow since a date, one item per request, e.g. for a nightly report or spreadsheet.',
		},
		properties: [
			operationList(operations),
			flowIdProperty(
				"ID of the flow whose requests to read. It is shown in the flow's address in BotDojo and on its API tab.",
			),
			...operationParameters(operations),
		],
	};

	execute = executeOperations(operations);
}
