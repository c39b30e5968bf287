import type { INodeType, INodeTypeDescription } from 'n8n-workflow';

import { executeOperations, operationList, operationParameters } from '../shared/execution';
import { nodeHeader, operationSubtitle } from '../shared/params/nodeHeader';
import { operation as getByLogicalPath } from './actions/getByLogicalPath.operation';
import { operation as getDownloadLink } from './actions/getDownloadLink.operation';
import { operation as upload } from './actions/upload.operation';

const operations = [upload, getByLogicalPath, getDownloadLink];
/** As an AI Agent tool, only the lookups: Upload needs a binary an agent cannot give. */
const toolOperations = [getByLogicalPath, getDownloadLink];

export class BotDojoUploadDocument implements INodeType {
	description: INodeTypeDescription = {
		...nodeHeader({
			title: 'Upload Document',
			name: 'botDojoUploadDocument',
			description:
				'Upload files to a BotDojo project as documents, look them up by path and get temporary download links',
		}),
		icon: {
			light: 'file:../shared/icons/botdojo.svg',
			dark: 'file:../shared/icons/botdojo.dark.svg',
		},
		subtitle: operationSubtitle(operations),
		usableAsTool: true,
		// The signed link reads the file without a key until it expires: an n8n that applies this
		// field (n8n-workflow 2.41 has it) hides it in saved executions; older n8n ignores it.
		sensitiveOutputFields: ['url'],
		// For n8n's AI Workflow Builder (n8n 2.x); older n8n ignores the field.
		builderHint: {
			searchHint:
				'Uploads a file (binary input) into a BotDojo project as a document under a logical path, or gets a document or a temporary download link.',
		},
		properties: [
			operationList(operations, { hide: { '@tool': [true] } }),
			// The tool variant (n8n's "…Tool" type).
			operationList(toolOperations, { show: { '@tool': [true] } }),
			...operationParameters(operations),
		],
	};

	execute = executeOperations(operations);
}
