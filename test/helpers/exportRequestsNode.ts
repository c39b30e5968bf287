import type { IDataObject } from 'n8n-workflow';

import type { NodeUnderTest } from './engine';

/** Export Requests (latest version) › Export of one flow, with the given parameters. */
export function exportRequestsNode(
	flowId: string,
	parameters: IDataObject,
	extra: Partial<NodeUnderTest> = {},
): NodeUnderTest {
	return {
		type: 'botDojoExportRequests',
		typeVersion: 1.1,
		parameters: { operation: 'export', flowId, ...parameters } as never,
		...extra,
	};
}
