/**
 * Issue 9 §3: an answer whose shape is not what the endpoint returns is an error naming the
 * endpoint and the shape it got, on every endpoint; it never comes out as data.
 */
import type { IDataObject } from 'n8n-workflow';

import { useEmulator } from '../helpers/emulator';
import { fileItem } from '../uploadDocument/documents';
import { runNode, type NodeUnderTest } from '../helpers/engine';

const env = useEmulator();

const textFile = { ...fileItem(Buffer.from('hello'), 'a.txt', 'text/plain'), json: {} };

/** A document stored while the emulator still answers in the spec's shapes. */
async function storedDocument(): Promise<IDataObject> {
	const { items, error } = await runNode({
		node: {
			type: 'botDojoUploadDocument',
			parameters: { operation: 'upload', logicalPath: 'docs/a.txt' } as never,
		},
		items: [textFile],
		credentials: env.credentials,
	});
	expect(error).toBeUndefined();
	return items[0].json;
}

interface Row {
	endpoint: string;
	node: (document: IDataObject) => NodeUnderTest;
	items?: (typeof textFile)[];
	expected: string;
	got: string;
}

const ROWS: Row[] = [
	{
		endpoint: 'flows/flow_echo/run',
		node: () => ({
			type: 'botDojoRunFlow',
			parameters: {
				flowId: 'flow_echo',
				inputMode: 'message',
				message: 'Hi',
				options: { streaming: false },
			} as never,
		}),
		expected: 'a flow request record (an object)',
		got: '[{',
	},
	{
		endpoint: 'flows/flow_echo/run',
		node: () => ({
			type: 'botDojoRunFlow',
			parameters: { flowId: 'flow_echo', inputMode: 'message', message: 'Hi' } as never,
		}),
		// Streamed (the default): the final result line is the answer.
		expected: 'a flow request record (an object)',
		got: 'a stream line that is an array',
	},
	{
		endpoint: 'flow_sessions/createSession',
		node: () => ({ type: 'botDojoCreateSession', parameters: { flowId: 'flow_echo' } as never }),
		expected: 'an object',
		got: 'an array',
	},
	{
		endpoint: 'flow_requests/export',
		node: () => ({
			type: 'botDojoExportRequests',
			parameters: { operation: 'export', flowId: 'flow_echo' } as never,
		}),
		expected: 'a list of records in "results"',
		got: 'an object',
	},
	{
		endpoint: 'flow_requests/loadByFlowSession',
		node: () => ({
			type: 'botDojoExportRequests',
			parameters: { operation: 'getBySession', flowId: 'flow_echo', sessionId: 'ses_1' } as never,
		}),
		expected: 'an array',
		got: 'an object',
	},
	{
		endpoint: 'documents/getTemporarySignedUrl',
		node: (document) => ({
			type: 'botDojoUploadDocument',
			parameters: {
				operation: 'getDownloadLink',
				documentSource: 'record',
				documentRecord: JSON.stringify(document),
			} as never,
		}),
		expected: 'a string',
		got: 'an object',
	},
	{
		endpoint: 'documents/loadByLogicalPath',
		node: () => ({
			type: 'botDojoUploadDocument',
			parameters: { operation: 'getByLogicalPath', logicalPath: 'docs/a.txt' } as never,
		}),
		expected: 'an object',
		got: 'an array',
	},
	{
		endpoint: 'documents/upload-file',
		node: () => ({
			type: 'botDojoUploadDocument',
			parameters: { operation: 'upload', logicalPath: 'docs/b.txt' } as never,
		}),
		items: [textFile],
		expected: 'an object',
		got: 'an array',
	},
	{
		endpoint: 'indexes/getStatus',
		node: () => ({
			type: 'botDojoQueryIndex',
			parameters: { operation: 'getStatus', indexId: 'idx_docs' } as never,
		}),
		expected: 'an object',
		got: 'an array',
	},
	{
		endpoint: 'indexes/queryMetadata',
		node: () => ({
			type: 'botDojoQueryIndex',
			parameters: { operation: 'queryMetadata', indexId: 'idx_docs', query: '{}' } as never,
		}),
		expected: 'an array',
		got: 'an object',
	},
];

describe('An answer of the wrong shape names the endpoint and the shape, on every endpoint', () => {
	it.each(ROWS)('$endpoint', async ({ endpoint, node, items, expected, got }) => {
		const document = await storedDocument();
		env.emu.setBehavior({ answerShape: 'mismatched' });
		const mark = env.emu.requests.length;

		const { items: output, error } = await runNode({
			node: node(document),
			items,
			credentials: env.credentials,
		});

		// BotDojo was asked (the answer arrived) and its answer was refused, not passed on.
		expect(env.emu.requests.slice(mark).map((request) => request.status)).toContain(200);
		expect(output).toEqual([]);
		expect(error?.message).toContain(
			`BotDojo's answer to ${endpoint} is not what that endpoint returns`,
		);
		expect(error?.message).toContain(`expected ${expected}, got ${got}`);
		expect(error?.description ?? '').toMatch(/Base URL/);
	});

	it('with Continue On Fail, the item carries the same error instead of the wrong answer', async () => {
		env.emu.setBehavior({ answerShape: 'mismatched' });
		const { items, error } = await runNode({
			node: {
				type: 'botDojoQueryIndex',
				parameters: { operation: 'getStatus', indexId: 'idx_docs' } as never,
				continueOnFail: true,
			},
			credentials: env.credentials,
		});
		expect(error).toBeUndefined();
		expect(items).toHaveLength(1);
		expect(items[0].json.error).toMatch(/indexes\/getStatus is not what that endpoint returns/);
		expect(items[0].json.id).toBeUndefined();
	});
});
