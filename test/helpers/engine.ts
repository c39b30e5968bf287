/**
 * Runs workflows of our nodes in n8n's real execution engine (n8n-core's WorkflowExecute,
 * real HTTP helpers, real credential injection), the way n8n's own node tests do.
 * Polls (`runPoll`) and binary data modes (`setBinaryMode`) have their own files, re-exported here.
 */
import './userFolder';

import { ExecutionLifecycleHooks, WorkflowExecute } from 'n8n-core';
import {
	createRunExecutionData,
	Workflow,
	type ExecutionError,
	type ICredentialDataDecryptedObject,
	type IConnections,
	type IDataObject,
	type INode,
	type INodeExecutionData,
	type INodeParameters,
	type IRun,
	type StructuredChunk,
	type WorkflowExecuteMode,
} from 'n8n-workflow';

import { additionalData, type BotDojoCredentialData } from './additionalData';
import { nodeTypes, PACKAGE } from './nodeTypes';

export { additionalData, type BotDojoCredentialData } from './additionalData';
export { nodeTypes } from './nodeTypes';
export { emittedIds, runPoll, type PollResult, type PollSettings } from './poll';
export {
	binaryStoragePath,
	databaseFileCount,
	readBinary,
	setBinaryMode,
	type BinaryMode,
} from './binary';

export interface NodeUnderTest {
	/** Short type, e.g. `botDojoRunFlow`; prefixed with the package name as n8n does. */
	type: string;
	parameters: INodeParameters;
	name?: string;
	typeVersion?: number;
	continueOnFail?: boolean;
	/** On Error setting; `continueErrorOutput` gives the node an error output (`errorItems`). */
	onError?: INode['onError'];
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
	/** Nodes after the node under test, each connected to the one before (their types registered). */
	next?: Array<{ name: string; type: string; disabled?: boolean }>;
	/** Workflow ID (default `wf-test`): state kept per workflow in the process follows it. */
	workflowId?: string;
	onChunk?: (chunk: StructuredChunk, receivedAt: number) => void;
}

export interface RunResult {
	/** Output items of the node under test (first output). */
	items: INodeExecutionData[];
	/** Items n8n routed to the error output (On Error: Continue (using error output)). */
	errorItems: INodeExecutionData[];
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
			onError: settings.node.onError,
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
	let previous = nodeName;
	for (const [index, next] of (settings.next ?? []).entries()) {
		nodes.push({
			...next,
			id: next.name,
			typeVersion: 1,
			position: [400 + 200 * index, 0],
			parameters: {},
		});
		connections[previous] = { main: [[{ node: next.name, type: 'main', index: 0 }]] };
		previous = next.name;
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
		const errorItems = runData?.[0]?.data?.main?.[1] ?? [];
		if (settings.staticData && workflow.staticData !== settings.staticData) {
			Object.assign(settings.staticData, workflow.staticData);
		}
		return {
			items,
			errorItems,
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
