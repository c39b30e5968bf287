import {
	NodeConnectionTypes,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeType,
	type INodeTypeDescription,
} from 'n8n-workflow';

import type { Operation } from '../shared/execution/operation';
import { routeOperation } from '../shared/execution/runner';
import * as getByLogicalPath from './actions/getByLogicalPath.operation';
import * as getDownloadLink from './actions/getDownloadLink.operation';
import * as upload from './actions/upload.operation';

const operations = {
	upload: upload.operation,
	getByLogicalPath: getByLogicalPath.operation,
	getDownloadLink: getDownloadLink.operation,
};

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
		// Reads the same whatever Logical Path holds (empty or an expression).
		subtitle:
			'={{ $parameter["operation"] === "getDownloadLink" ? "Get download link" : $parameter["operation"] === "getByLogicalPath" ? "Get document by logical path" : "Upload document" }}',
		description:
			'Upload files to a BotDojo project as documents, look them up by path and get temporary download links',
		defaults: { name: 'BotDojo Upload Document' },
		// As an AI Agent tool, only the document lookups: Upload needs a binary an agent cannot give.
		usableAsTool: true,
		// The signed link reads the file without a key until it expires: an n8n that applies this
		// field (n8n-workflow 2.41 has it) hides it in saved executions; older n8n ignores it.
		sensitiveOutputFields: ['url'],
		// For n8n's AI Workflow Builder (n8n 2.x); older n8n ignores the field.
		builderHint: {
			searchHint:
				'Uploads a file (binary input) into a BotDojo project as a document under a logical path, or gets a document or a temporary download link.',
		},
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
				// hide, not show for false: n8n-workflow 1.83 (n8n 1.85) knows no @tool and reads it as unset.
				displayOptions: { hide: { '@tool': [true] } },
			},
			{
				// The tool variant (n8n's "…Tool" type): the lookups only.
				displayName: 'Operation',
				name: 'operation',
				type: 'options',
				noDataExpression: true,
				options: [getByLogicalPath.option, getDownloadLink.option],
				default: 'getByLogicalPath',
				displayOptions: { show: { '@tool': [true] } },
			},
			...upload.operation.description,
			...getByLogicalPath.operation.description,
			...getDownloadLink.operation.description,
		],
	};

	/** Every item's input is checked before the first request (the shared runner). */
	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await routeOperation.call(this, operations as Record<string, Operation>);
	}
}
