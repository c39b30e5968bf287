/**
 * Runs the credential's `test` request the way n8n's CLI (CredentialsTester) does: a temporary
 * node whose routing is the test request, run by n8n-core's RoutingNode, then the `rules`.
 */
import { ExecuteContext, RoutingNode } from 'n8n-core';
import {
	createRunExecutionData,
	Workflow,
	type ICredentialDataDecryptedObject,
	type INode,
	type INodeCredentialTestResult,
	type INodeType,
} from 'n8n-workflow';

import { additionalData, type BotDojoCredentialData } from './engine';
import { credentialType } from './nodeTypes';

export async function testCredential(
	data: BotDojoCredentialData,
): Promise<INodeCredentialTestResult> {
	const testRequest = credentialType.test;
	const nodeType: INodeType = {
		description: {
			displayName: 'Temp',
			name: 'temp',
			group: ['transform'],
			version: 1,
			description: '',
			defaults: {},
			inputs: [],
			outputs: [],
			credentials: [{ name: credentialType.name, required: true }],
			properties: [
				{
					displayName: 'Temp',
					name: 'temp',
					type: 'string',
					default: '',
					routing: { request: testRequest.request },
				},
			],
		},
	};
	const node: INode = {
		id: 'temp',
		name: 'Temp-Node',
		type: 'temp',
		typeVersion: 1,
		position: [0, 0],
		parameters: {},
		credentials: { [credentialType.name]: { id: 'tested', name: 'tested' } },
	};
	const workflow = new Workflow({
		nodes: [node],
		connections: {},
		active: false,
		nodeTypes: {
			getByName: () => nodeType,
			getByNameAndVersion: () => nodeType,
			getKnownTypes: () => ({}),
		},
	});
	const store = { tested: data as unknown as ICredentialDataDecryptedObject };
	const context = new ExecuteContext(
		workflow,
		node,
		additionalData(store),
		'internal',
		createRunExecutionData(),
		0,
		[],
		{ main: [[{ json: {} }]] },
		{ node, data: {}, source: null },
		[],
	);
	const routingNode = new RoutingNode(context, nodeType, {
		id: 'tested',
		name: 'tested',
		type: credentialType.name,
		data: store.tested,
	});
	try {
		await routingNode.runNode();
	} catch (error) {
		const status = (error as { cause?: { response?: { status?: number; statusText?: string } } })
			.cause?.response?.status;
		if (status !== undefined) {
			for (const rule of testRequest.rules ?? []) {
				if (rule.type === 'responseCode' && rule.properties.value === status) {
					return { status: 'Error', message: rule.properties.message };
				}
			}
			return { status: 'Error', message: `Received HTTP status code: ${status}` };
		}
		return { status: 'Error', message: (error as Error).message };
	}
	return { status: 'OK', message: 'Connection successful!' };
}
