/** One poll of a polling trigger through n8n-core's PollContext, as n8n's poller does. */
import './userFolder';

import {
	Workflow,
	type ICredentialDataDecryptedObject,
	type IDataObject,
	type INode,
	type INodeExecutionData,
	type WorkflowExecuteMode,
} from 'n8n-workflow';

import { additionalData, type BotDojoCredentialData } from './additionalData';
import type { NodeUnderTest } from './engine';
import { nodeTypes, PACKAGE } from './nodeTypes';

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

/** The ids of the items a poll emitted, in order (none when it returned null). */
export function emittedIds(output: PollResult['output']): unknown[] {
	return output === null ? [] : output[0].map((item) => item.json.id);
}
