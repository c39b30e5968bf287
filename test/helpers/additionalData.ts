/**
 * What n8n's CLI hands a node at run time: decrypted credentials (resolved by id) and the
 * additional data of an execution.
 */
import './userFolder';

import type { ExecutionLifecycleHooks } from 'n8n-core';
import {
	ICredentialsHelper,
	type ICredentialDataDecryptedObject,
	type ICredentials,
	type IDataObject,
	type IHttpRequestOptions,
	type INode,
	type INodeCredentialsDetails,
	type INodeProperties,
	type IWorkflowExecuteAdditionalData,
	type Workflow,
} from 'n8n-workflow';

import { credentialType } from './nodeTypes';

export interface BotDojoCredentialData {
	baseUrl: string;
	accountId: string;
	projectId: string;
	apiKey: string;
}

/** How often a credential was fetched and decrypted (in n8n: a database read each). */
export const credentialReads = { count: 0 };

/** Credentials by id, as n8n's credentials store would hand them out decrypted. */
class TestCredentialsHelper extends ICredentialsHelper {
	constructor(private readonly store: Record<string, ICredentialDataDecryptedObject>) {
		super();
	}

	getParentTypes(): string[] {
		return [];
	}

	isCredentialUsableByNode(): boolean {
		return true;
	}

	/** The generic `authenticate` of our credential type, resolved as n8n's CLI does it. */
	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		requestOptions: IHttpRequestOptions,
		workflow: Workflow,
		node: INode,
	): Promise<IHttpRequestOptions> {
		if (typeName !== credentialType.name) throw new Error(`Unexpected credential type ${typeName}`);
		const headers = { ...(requestOptions.headers ?? {}) } as IDataObject;
		const auth = credentialType.authenticate.properties.headers ?? {};
		for (const [name, value] of Object.entries(auth)) {
			headers[name] = workflow.expression.getSimpleParameterValue(
				node,
				value as string,
				'internal',
				{ $credentials: credentials },
			) as string;
		}
		return { ...requestOptions, headers };
	}

	async preAuthentication() {
		return undefined;
	}

	async runPreAuthentication() {
		return undefined;
	}

	async getCredentials(): Promise<ICredentials> {
		throw new Error('not used');
	}

	async getDecrypted(
		_additionalData: IWorkflowExecuteAdditionalData,
		nodeCredentials: INodeCredentialsDetails,
	): Promise<ICredentialDataDecryptedObject> {
		const data = this.store[nodeCredentials.id ?? ''];
		if (!data) throw new Error(`No credential ${nodeCredentials.id}`);
		credentialReads.count++;
		return { ...data };
	}

	async updateCredentials() {}

	async updateCredentialsOauthTokenData() {}

	getCredentialsProperties(): INodeProperties[] {
		return credentialType.properties;
	}
}

export function additionalData(
	credentials: Record<string, ICredentialDataDecryptedObject>,
	hooks?: ExecutionLifecycleHooks,
	streaming = false,
): IWorkflowExecuteAdditionalData {
	const base = 'http://127.0.0.1:5678';
	return {
		credentialsHelper: new TestCredentialsHelper(credentials),
		executeWorkflow: async () => {
			throw new Error('sub-workflows are not used');
		},
		getRunExecutionData: async () => undefined,
		getRuntimeCredential: async () => undefined,
		currentNodeExecutionIndex: 0,
		restApiUrl: `${base}/rest`,
		instanceBaseUrl: base,
		formBaseUrl: `${base}/form`,
		formWaitingBaseUrl: `${base}/form-waiting`,
		formTestBaseUrl: `${base}/form-test`,
		webhookBaseUrl: `${base}/webhook`,
		webhookWaitingBaseUrl: `${base}/webhook-waiting`,
		webhookTestBaseUrl: `${base}/webhook-test`,
		mcpBaseUrl: `${base}/mcp`,
		mcpTestBaseUrl: `${base}/mcp-test`,
		variables: {},
		logAiEvent: () => {},
		startRunnerTask: async () => {
			throw new Error('task runners are not used');
		},
		hooks,
		streamingEnabled: streaming,
	} as unknown as IWorkflowExecuteAdditionalData;
}
