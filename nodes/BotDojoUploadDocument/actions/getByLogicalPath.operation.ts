import { defineOperation } from '../../shared/execution';
import { loadDocumentByLogicalPath } from '../../shared/transport/api';
import { logicalPathProperty, readLookupPath } from './logicalPath';

export const operation = defineOperation({
	option: {
		name: 'Get by Logical Path',
		value: 'getByLogicalPath',
		action: 'Get document by logical path',
		description: 'Read the record of the latest version of the document stored under a path',
	},
	description: [logicalPathProperty('The logical path the document was uploaded under')],
	prepare(itemIndex) {
		return readLookupPath(this, itemIndex);
	},
	async execute(logicalPath, itemIndex) {
		return await loadDocumentByLogicalPath(this, logicalPath, itemIndex);
	},
});
