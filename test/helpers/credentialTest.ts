/**
 * Presses the credential's Test button the way n8n's CLI does (n8n 2.40.7,
 * `n8n/dist/services/credentials-tester.service.js`, `runRequestTest`): the credential's
 * declarative `test.request` becomes the `routing.request` of a throw-away node, n8n-core's real
 * RoutingNode sends it through n8n's HTTP helper with the credential's `authenticate`, and the
 * answer is judged as n8n judges it: a failed request by its `responseCode` rules (else its
 * status text, else its error code), a successful one by `responseSuccessBody` rules.
 */
import { ExecuteContext, RoutingNode } from 'n8n-core';
import {
	createRunExecutionData,
	Workflow,
	type ICredentialDataDecryptedObject,
	type ICredentialTestRequest,
	type INode,
	type INodeCredentialTestResult,
	type INodeExecutionData,
	type INodeType,
	type INodeTypes,
} from 'n8n-workflow';

import { additionalData, type BotDojoCredentialData } from './engine';
import { credentialType } from './nodeTypes';

interface FailedRequest {
	message: string;
	cause?: { code?: string; response?: { status: number; statusText?: string } };
}

/** The credential's declarative test; n8n would use it before any node's `testedBy`. */
export function declarativeTest(): ICredentialTestRequest {
	const { test } = credentialType;
	if (!test) throw new Error('the credential has no declarative test');
	return test;
}

export async function testCredential(
	data: BotDojoCredentialData,
): Promise<INodeCredentialTestResult> {
	const test = declarativeTest();
	const credentialsDecrypted = {
		id: 'tested',
		name: 'tested',
		type: credentialType.name,
		data: data as unknown as ICredentialDataDecryptedObject,
	};
	const node: INode = {
		id: 'temp',
		name: 'Temp-Node',
		type: 'n8n-nodes-base.noOp',
		typeVersion: 1,
		position: [0, 0],
		parameters: {},
		credentials: { [credentialType.name]: { id: 'tested', name: 'tested' } },
	};
	const nodeType = {
		description: {
			displayName: 'No Operation',
			name: 'n8n-nodes-base.noOp',
			group: [],
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
					routing: { request: test.request },
					default: '',
				},
			],
		},
	} as unknown as INodeType;
	const nodeTypes = {
		getByName: () => nodeType,
		getByNameAndVersion: () => nodeType,
		getKnownTypes: () => ({}),
	} as unknown as INodeTypes;
	const workflow = new Workflow({ nodes: [node], connections: {}, active: false, nodeTypes });
	const context = new ExecuteContext(
		workflow,
		node,
		additionalData({ tested: credentialsDecrypted.data }),
		'internal',
		createRunExecutionData(),
		0,
		[],
		{ main: [[{ json: {} }]] },
		{ node, data: {}, source: null },
		[],
	);
	let response: INodeExecutionData[][] | undefined;
	try {
		await workflow.expression.acquireIsolate();
		response = await new RoutingNode(context, nodeType, credentialsDecrypted).runNode();
	} catch (caught) {
		const error = caught as FailedRequest;
		const answer = error.cause?.response;
		if (answer) {
			for (const rule of test.rules ?? []) {
				if (rule.type === 'responseCode' && rule.properties.value === answer.status)
					return { status: 'Error', message: rule.properties.message };
			}
			if (answer.status < 199 || answer.status > 299)
				return {
					status: 'Error',
					message: answer.statusText || `Received HTTP status code: ${answer.status}`,
				};
		} else if (error.cause?.code) {
			return { status: 'Error', message: error.cause.code };
		}
		return { status: 'Error', message: String(error.message) };
	} finally {
		await workflow.expression.releaseIsolate();
	}
	// As n8n reads it (`response[0][0].json`): an answer of no items (`[]`) throws here, as in n8n.
	const body = (response as INodeExecutionData[][])[0][0].json;
	for (const rule of test.rules ?? []) {
		if (rule.type !== 'responseSuccessBody') continue;
		const value = rule.properties.key
			.split('.')
			.reduce<unknown>((inner, key) => (inner as Record<string, unknown> | undefined)?.[key], body);
		if (value === rule.properties.value)
			return { status: 'Error', message: rule.properties.message };
	}
	return { status: 'OK', message: 'Connection successful!' };
}
