/**
 * Which nodes an AI Agent can use as tools: Run Flow, Query Index (index lookups) and Upload
 * Document limited to its document lookups. Export Requests (thousands of records), Create
 * Session and the Trigger are not tools. n8n makes a "…Tool" variant of each usableAsTool node
 * (same description, name + "Tool"); `@tool` display options are evaluated on that name.
 */
import { NodeHelpers, Workflow, type INode, type INodeType } from 'n8n-workflow';

import { nodeTypes, runNode } from '../helpers/engine';
import { useEmulator } from '../helpers/emulator';
import { NODE_NAMES, PACKAGE, toolVariant } from '../helpers/nodeTypes';

const env = useEmulator();

const ALL = NODE_NAMES;

function nodeType(name: string): INodeType {
	return nodeTypes.getByNameAndVersion(`${PACKAGE}.${name}`);
}

/** The options of the Operation parameter n8n shows for a node of this description. */
function visibleOperations(type: INodeType): unknown[] {
	const node = { typeVersion: 1, parameters: {} } as unknown as INode;
	const shown = type.description.properties.filter(
		(property) =>
			property.name === 'operation' &&
			NodeHelpers.displayParameter({}, property, node, type.description),
	);
	expect(shown).toHaveLength(1);
	return (shown[0].options ?? []).map((option) => (option as { value: unknown }).value);
}

describe('AI Agent tools', () => {
	it('are Run Flow, Query Index and Upload Document, no other node', () => {
		const tools = ALL.filter((name) => nodeType(name).description.usableAsTool === true);
		expect(tools).toEqual(['botDojoRunFlow', 'botDojoUploadDocument', 'botDojoQueryIndex']);
	});

	it('Upload Document offers all three operations as a node, only the lookups as a tool', () => {
		expect(visibleOperations(nodeType('botDojoUploadDocument'))).toEqual([
			'upload',
			'getByLogicalPath',
			'getDownloadLink',
		]);
		expect(visibleOperations(toolVariant('botDojoUploadDocument'))).toEqual([
			'getByLogicalPath',
			'getDownloadLink',
		]);
		expect(visibleOperations(toolVariant('botDojoQueryIndex'))).toEqual([
			'getStatus',
			'queryMetadata',
		]);
	});

	it('Upload Document as a tool looks a document up by default, without any operation set', async () => {
		nodeTypes.register(
			`${PACKAGE}.botDojoUploadDocumentTool`,
			toolVariant('botDojoUploadDocument'),
		);
		const uploaded = await runNode({
			node: {
				type: 'botDojoUploadDocument',
				parameters: { operation: 'upload', logicalPath: 'docs/hello.txt' } as never,
			},
			items: [
				{
					json: {},
					binary: {
						data: {
							base64: Buffer.from('hello').toString('base64'),
							fileName: 'hello.txt',
							mimeType: 'text/plain',
						},
					},
				},
			],
			credentials: env.credentials,
		});
		expect(uploaded.error).toBeUndefined();

		const { items, error } = await runNode({
			node: {
				type: 'botDojoUploadDocumentTool',
				parameters: { logicalPath: 'docs/hello.txt' } as never,
			},
			credentials: env.credentials,
		});
		expect(error).toBeUndefined();
		expect(items[0].json).toEqual(uploaded.items[0].json);
		expect(env.emu.requestsTo('loadByLogicalPath').map((r) => r.body)).toEqual([
			{ params: ['docs/hello.txt'] },
		]);
		expect(env.emu.requestsTo('uploadFile')).toHaveLength(1);
	});
});

describe('Canvas subtitles', () => {
	/** The subtitle as n8n's editor computes it: the node's subtitle expression over its parameters. */
	function subtitleOf(name: string, parameters: Record<string, unknown>): unknown {
		const type = nodeType(name);
		const node = {
			id: 'n',
			name: 'N',
			type: `${PACKAGE}.${name}`,
			typeVersion: 1,
			position: [0, 0],
			parameters,
		} as INode;
		const workflow = new Workflow({
			nodes: [node],
			connections: {},
			active: false,
			nodeTypes,
		});
		return workflow.expression.getSimpleParameterValue(
			node,
			type.description.subtitle as string,
			'internal',
			// As the editor does: $parameter holds the values as saved, expressions unresolved.
			{ $parameter: parameters } as never,
		);
	}

	// n8n's own form, `<operation>: <what it acts on>`, in Title Case (issue 27 §4).
	it.each([
		['botDojoRunFlow', 'flow_echo', 'Run: flow_echo'],
		['botDojoRunFlow', { __rl: true, mode: 'id', value: 'flow_echo' }, 'Run: flow_echo'],
		['botDojoRunFlow', { __rl: true, mode: 'id', value: '' }, 'Run'],
		[
			'botDojoRunFlow',
			{ __rl: true, mode: 'id', value: '={{ $json.flow }}' },
			'Run: Flow ID From Input',
		],
		['botDojoCreateSession', '', 'Create'],
		['botDojoCreateSession', 'flow_echo', 'Create: flow_echo'],
	])('%s with Flow ID %j reads "%s"', (name, flowId, expected) => {
		expect(subtitleOf(name, { flowId })).toBe(expected);
	});

	it.each([
		['getStatus', { __rl: true, mode: 'id', value: 'idx_docs' }, 'Get Status: idx_docs'],
		['queryMetadata', '', 'Get Many by Metadata'],
		['queryMetadata', '={{ $json.index }}', 'Get Many by Metadata: Index ID From Input'],
	])('Query Index %s with Index ID %j reads "%s"', (operation, indexId, expected) => {
		expect(subtitleOf('botDojoQueryIndex', { operation, indexId })).toBe(expected);
	});

	it.each([
		['botDojoExportRequests', { operation: 'export', flowId: 'flow_echo' }, 'Export: flow_echo'],
		[
			'botDojoExportRequests',
			{ operation: 'getBySession', flowId: 'flow_echo' },
			'Get Many by Session: flow_echo',
		],
		['botDojoUploadDocument', { operation: 'upload' }, 'Upload'],
		['botDojoUploadDocument', { operation: 'getByLogicalPath' }, 'Get by Logical Path'],
		['botDojoUploadDocument', { operation: 'getDownloadLink' }, 'Get Download Link'],
		['botDojoTrigger', { statuses: 'both' }, 'On Finished Requests'],
		['botDojoTrigger', { statuses: 'complete' }, 'On Complete Requests'],
		['botDojoTrigger', { statuses: 'error' }, 'On Error Requests'],
	])('%s with %j reads "%s"', (name, parameters, expected) => {
		expect(subtitleOf(name, parameters)).toBe(expected);
	});

	it('every subtitle names the operation as the Operation list does', () => {
		for (const name of ['botDojoExportRequests', 'botDojoQueryIndex', 'botDojoUploadDocument']) {
			const operations = nodeType(name).description.properties.find(
				(property) => property.name === 'operation',
			)?.options as Array<{ name: string; value: string }>;
			for (const { name: label, value } of operations) {
				expect(subtitleOf(name, { operation: value })).toBe(label);
			}
		}
	});
});
