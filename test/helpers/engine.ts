/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals -- test code: runs in jest, never in n8n */
/**
 * Runs workflows of our nodes in n8n's real execution engine (n8n-core's WorkflowExecute,
 * real HTTP helpers, real credential injection), the way n8n's own node tests do.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

// n8n-core writes its config under N8N_USER_FOLDER when first loaded.
if (!process.env.N8N_USER_FOLDER) {
	process.env.N8N_USER_FOLDER = fs.mkdtempSync(path.join(os.tmpdir(), 'n8n-botdojo-test-'));
}

import { ExecutionLifecycleHooks, WorkflowExecute } from 'n8n-core';
import {
	createRunExecutionData,
	ICredentialsHelper,
	Workflow,
	type ExecutionError,
	type ICredentialDataDecryptedObject,
	type ICredentials,
	type IConnections,
	type IDataObject,
	type IHttpRequestOptions,
	type INode,
	type INodeCredentialsDetails,
	type INodeExecutionData,
	type INodeParameters,
	type INodeProperties,
	type IRun,
	type IWorkflowExecuteAdditionalData,
	type StructuredChunk,
	type WorkflowExecuteMode,
} from 'n8n-workflow';

import { credentialType, PACKAGE, TestNodeTypes } from './nodeTypes';

export const nodeTypes = new TestNodeTypes();

export interface BotDojoCredentialData {
	baseUrl: string;
	accountId: string;
	projectId: string;
	apiKey: string;
}

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

export interface NodeUnderTest {
	/** Short type, e.g. `botDojoRunFlow`; prefixed with the package name as n8n does. */
	type: string;
	parameters: INodeParameters;
	name?: string;
	typeVersion?: number;
	continueOnFail?: boolean;
	/** Id of the credential to use (see `credentials`); default `main`. */
	credentialId?: string | null;
}

export interface RunSettings {
	node: NodeUnderTest;
	/** Input items; `binary` entries are `{ base64, fileName, mimeType }`. */
	items?: Array<{ json: IDataObject; binary?: IDataObject }>;
	/** Credentials by id; `main` is the one nodes use by default. */
	credentials: Record<string, BotDojoCredentialData>;
	mode?: WorkflowExecuteMode;
	/** Registers a sendChunk handler and turns streaming on, as a Chat Trigger or streaming Webhook does. */
	streaming?: boolean;
	/** Workflow static data; the same object can be passed to several runs (it is updated in place). */
	staticData?: IDataObject;
	/** Sub-nodes (e.g. a chat memory) connected to the node under test by their connection type. */
	subNodes?: Array<{ name: string; type: string; parameters: INodeParameters; connection: string }>;
	/** Workflow ID (default `wf-test`): state kept per workflow in the process follows it. */
	workflowId?: string;
	onChunk?: (chunk: StructuredChunk, receivedAt: number) => void;
}

export interface RunResult {
	/** Output items of the node under test (first output). */
	items: INodeExecutionData[];
	/** The execution error, when the workflow failed. */
	error?: ExecutionError;
	chunks: Array<{ chunk: StructuredChunk; receivedAt: number }>;
	run: IRun;
	staticData: IDataObject;
}

export interface StartedRun {
	result: Promise<RunResult>;
	/** Like the editor's Stop button. */
	cancel(): void;
}

const SOURCE_NAME = 'Items';

export function startRun(settings: RunSettings): StartedRun {
	const nodeName = settings.node.name ?? 'BotDojo';
	const credentialId =
		settings.node.credentialId === undefined ? 'main' : settings.node.credentialId;
	const nodes: INode[] = [
		{
			id: 'source',
			name: SOURCE_NAME,
			type: 'test.items',
			typeVersion: 1,
			position: [0, 0],
			parameters: { items: JSON.stringify(settings.items ?? [{ json: {} }]) },
		},
		{
			id: 'under-test',
			name: nodeName,
			type: `${PACKAGE}.${settings.node.type}`,
			typeVersion: settings.node.typeVersion ?? 1,
			position: [200, 0],
			parameters: settings.node.parameters,
			continueOnFail: settings.node.continueOnFail,
			credentials: credentialId
				? { botDojoApi: { id: credentialId, name: `BotDojo ${credentialId}` } }
				: undefined,
		},
	];
	const connections: IConnections = {
		[SOURCE_NAME]: { main: [[{ node: nodeName, type: 'main', index: 0 }]] },
	};
	for (const sub of settings.subNodes ?? []) {
		nodes.push({ ...sub, id: sub.name, typeVersion: 1, position: [200, 200] });
		connections[sub.name] = {
			[sub.connection]: [[{ node: nodeName, type: sub.connection as never, index: 0 }]],
		};
	}
	const workflowId = settings.workflowId ?? 'wf-test';
	const workflow = new Workflow({
		id: workflowId,
		name: 'test',
		nodes,
		connections,
		active: false,
		nodeTypes,
		staticData: settings.staticData,
	});
	const mode = settings.mode ?? 'manual';
	const hooks = new ExecutionLifecycleHooks(mode, 'exec-test', {
		id: workflowId,
		name: 'test',
		nodes,
		connections: workflow.connectionsBySourceNode,
		active: false,
		activeVersionId: null,
		isArchived: false,
		createdAt: new Date(),
		updatedAt: new Date(),
	} as never);
	const chunks: RunResult['chunks'] = [];
	if (settings.streaming) {
		hooks.addHandler('sendChunk', (chunk: StructuredChunk) => {
			const receivedAt = Date.now();
			chunks.push({ chunk, receivedAt });
			settings.onChunk?.(chunk, receivedAt);
		});
	}
	const data = additionalData(
		settings.credentials as unknown as Record<string, ICredentialDataDecryptedObject>,
		hooks,
		settings.streaming,
	);
	const execution = new WorkflowExecute(data, mode, createRunExecutionData()).run({
		workflow,
		startNode: workflow.getNode(SOURCE_NAME) ?? undefined,
	});
	const result = (async (): Promise<RunResult> => {
		const run = await execution;
		const runData = run.data.resultData.runData[nodeName];
		const items = runData?.[0]?.data?.main?.[0] ?? [];
		if (settings.staticData && workflow.staticData !== settings.staticData) {
			Object.assign(settings.staticData, workflow.staticData);
		}
		return {
			items,
			error: run.data.resultData.error,
			chunks,
			run,
			staticData: workflow.staticData,
		};
	})();
	return { result, cancel: () => execution.cancel() };
}

/** Runs the node once over the given items and returns its output. */
export async function runNode(settings: RunSettings): Promise<RunResult> {
	return await startRun(settings).result;
}

export interface PollSettings {
	node: NodeUnderTest;
	credentials: Record<string, BotDojoCredentialData>;
	/** `trigger` for an active workflow's poll, `manual` for the editor's "Fetch Test Event". */
	mode?: WorkflowExecuteMode;
	/** Workflow static data; pass the same object to several polls (it is updated in place). */
	staticData?: IDataObject;
	/** What `getPollBudgetMs()` answers (n8n's durable scheduler sets it); n8n-core's default otherwise. */
	pollBudgetMs?: number;
}

export interface PollResult {
	/** What `poll()` returned: `[items]`, or null when there was nothing new. */
	output: INodeExecutionData[][] | null;
	staticData: IDataObject;
}

/** Runs one poll of a polling trigger through n8n-core's PollContext, as n8n's poller does. */
export async function runPoll(settings: PollSettings): Promise<PollResult> {
	// Loaded here so that test files without triggers do not need it.
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const { PollContext } = require('n8n-core') as typeof import('n8n-core');
	const credentialId =
		settings.node.credentialId === undefined ? 'main' : settings.node.credentialId;
	const node: INode = {
		id: 'trigger-under-test',
		name: settings.node.name ?? 'BotDojo Trigger',
		type: `${PACKAGE}.${settings.node.type}`,
		typeVersion: settings.node.typeVersion ?? 1,
		position: [0, 0],
		parameters: settings.node.parameters,
		credentials: credentialId
			? { botDojoApi: { id: credentialId, name: `BotDojo ${credentialId}` } }
			: undefined,
	};
	const workflow = new Workflow({
		id: 'wf-poll-test',
		name: 'poll test',
		nodes: [node],
		connections: {},
		active: true,
		nodeTypes,
		staticData: settings.staticData,
	});
	const mode = settings.mode ?? 'trigger';
	const context = new PollContext(
		workflow,
		node,
		additionalData(
			settings.credentials as unknown as Record<string, ICredentialDataDecryptedObject>,
		),
		mode,
		mode === 'manual' ? 'manual' : 'activate',
		undefined,
		undefined,
		undefined,
		undefined,
		undefined,
		settings.pollBudgetMs === undefined ? undefined : () => settings.pollBudgetMs as number,
	);
	const nodeType = nodeTypes.getByNameAndVersion(node.type);
	if (!nodeType.poll) throw new Error(`${node.type} is not a polling node`);
	const output = await nodeType.poll.call(context);
	if (settings.staticData && workflow.staticData !== settings.staticData) {
		Object.assign(settings.staticData, workflow.staticData);
	}
	return { output, staticData: workflow.staticData };
}

/**
 * n8n's binary data modes: `memory` keeps a file as base64 in its item, `filesystem` stores it
 * under a temp folder and leaves an `id` in the item (what n8n does by default for large files).
 */
export type BinaryMode = 'memory' | 'filesystem';

/** n8n-core's own DI container (it may carry its own copy of @n8n/di). */
function coreContainer(): { get<T>(type: new (...args: never[]) => T): T } {
	const diPath = require.resolve('@n8n/di', { paths: [require.resolve('n8n-core')] });
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	return (require(diPath) as { Container: ReturnType<typeof coreContainer> }).Container;
}

/**
 * Switches the binary data mode of the runs that follow (jest isolates modules per test file,
 * so this does not reach other files). Files stored earlier stay readable in either mode.
 */
export async function setBinaryMode(mode: BinaryMode): Promise<void> {
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const { BinaryDataConfig, BinaryDataService } = require('n8n-core') as typeof import('n8n-core');
	const container = coreContainer();
	const service = container.get(BinaryDataService) as unknown as {
		mode: string;
		managers: Record<string, unknown>;
		init(): Promise<void>;
	};
	if (mode === 'filesystem' && !service.managers.filesystem) {
		container.get(BinaryDataConfig).localStoragePath = fs.mkdtempSync(
			path.join(os.tmpdir(), 'n8n-botdojo-binary-'),
		);
		await service.init();
	}
	// With no manager for the mode, n8n-core keeps binaries in memory (base64 in the item).
	service.mode = mode === 'filesystem' ? 'filesystem-v2' : 'default';
}

/** The bytes of a binary in either mode, read the way nodes read them. */
export async function readBinary(binary: import('n8n-workflow').IBinaryData): Promise<Buffer> {
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const { BinaryDataService } = require('n8n-core') as typeof import('n8n-core');
	return await coreContainer().get(BinaryDataService).getAsBuffer(binary);
}
