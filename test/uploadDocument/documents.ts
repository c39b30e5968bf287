/** Shared by the Upload Document tests: the node, a file item, and what the emulator received. */
import { createHash } from 'node:crypto';

import type { IDataObject } from 'n8n-workflow';

import type { Emulator } from '../../emulator';
import type { EmulatorFixture } from '../helpers/emulator';
import { runNode, type NodeUnderTest } from '../helpers/engine';

/** The fields of the emulator's request log that these tests read. */
export type Logged = { endpoint: string; status?: number; body?: unknown; headers: IDataObject };

export function uploadNode(
	parameters: Record<string, unknown>,
	extra: Partial<NodeUnderTest> = {},
) {
	return {
		type: 'botDojoUploadDocument',
		parameters: { operation: 'upload', ...parameters } as never,
		...extra,
	};
}

export function fileItem(content: Buffer, fileName = 'report.pdf', mimeType = 'application/pdf') {
	return {
		json: { name: fileName },
		binary: { data: { base64: content.toString('base64'), fileName, mimeType } },
	};
}

export const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

/** What the emulator received as the multipart body of each upload. */
export function uploadsReceived(emu: Emulator): IDataObject[] {
	return emu.requestsTo('uploadFile').map((request: Logged) => request.body as IDataObject);
}

export function linkNode(parameters: Record<string, unknown>, extra: Partial<NodeUnderTest> = {}) {
	return {
		type: 'botDojoUploadDocument',
		parameters: { operation: 'getDownloadLink', ...parameters } as never,
		...extra,
	};
}

/** Uploads `content` through the node and returns the document record it output. */
export async function uploadThroughNode(
	env: EmulatorFixture,
	content: Buffer,
	logicalPath: string,
	fileName: string,
	mimeType: string,
) {
	const { items, error } = await runNode({
		node: uploadNode({ logicalPath }),
		items: [
			{ json: {}, binary: { data: { base64: content.toString('base64'), fileName, mimeType } } },
		],
		credentials: env.credentials,
	});
	expect(error).toBeUndefined();
	return items[0].json;
}
