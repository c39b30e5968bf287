/**
 * docs/troubleshooting.md, Service answers: each status BotDojo can answer, what the user
 * reads and whether the flow ran. Rows read like the README's table.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import type { EndpointName } from '../../emulator/types';

import { runNode, type RunResult } from '../helpers/engine';
import { useEmulator } from '../helpers/emulator';
import { flowRuns, MAY_HAVE_RUN, statusesOf, whatUserSees } from '../helpers/faults';
import { message, runBodies, runFlow } from '../helpers/runFlow';

const env = useEmulator();

/** Retry advice: only Run Flow has a retry question (a retry could run the flow twice). */
const RETRY_QUESTION = /safe to retry/i;

/** Run Flow of `flowId` with the message "Hi"; `extra` parameters merged in. */
const runFlowOf =
	(flowId: string, extra: INodeParameters = {}, credentialId?: string) =>
	async () =>
		await runFlow(env, { parameters: message(flowId, 'Hi', extra), credentialId });

/** The credential `main` with some fields changed. */
const mainWith = (fields: IDataObject) => ({
	...env.credentials,
	main: { ...env.credentials.main, ...fields },
});

const runFlowWith = (fields: IDataObject) => async () =>
	await runNode({
		node: { type: 'botDojoRunFlow', parameters: message('flow_echo', 'Hi') },
		credentials: mainWith(fields),
	});

const getStatus =
	(indexId = 'idx_docs', credentialId = 'main', fields: IDataObject = {}) =>
	async () =>
		await runNode({
			node: {
				type: 'botDojoQueryIndex',
				parameters: { operation: 'getStatus', indexId },
				credentialId,
			},
			credentials: mainWith(fields),
		});

const getByLogicalPath = (logicalPath: string) => async () =>
	await runNode({
		node: {
			type: 'botDojoUploadDocument',
			parameters: { operation: 'getByLogicalPath', logicalPath },
		},
		credentials: env.credentials,
	});

interface Row {
	fault: string;
	node: 'Run Flow' | 'Query Index' | 'Upload Document';
	/** Arms a fault before the run. */
	arm?: () => void;
	run: () => Promise<RunResult>;
	/** Key phrases of what the user reads (error message and description)… */
	sees?: RegExp[];
	/** Phrases the user must not read (e.g. retry advice on a lookup, which has no retry question). */
	notSees?: RegExp[];
	/** …or, when the node recovered, the answer the item carries. */
	answer?: string;
	/** What BotDojo answered, in order, on the endpoint the node called. */
	endpoint: EndpointName;
	answered: number[];
	/** Runs of the flow BotDojo started. */
	flowRan: number;
	/** Whether the user is told the flow may have run (so not to retry blindly). */
	mayHaveRun?: boolean;
}

const rows: Row[] = [
	{
		fault: '401 (wrong API key)',
		node: 'Run Flow',
		run: runFlowOf('flow_echo', {}, 'wrong'),
		sees: [/rejected the API key \(401\)/, /Project Settings → API Keys/],
		endpoint: 'run',
		answered: [401],
		flowRan: 0,
	},
	{
		fault: '401 (wrong API key)',
		node: 'Query Index',
		run: getStatus('idx_docs', 'wrong'),
		sees: [
			/rejected the API key \(401\)/,
			/paste the key again.*without "Bearer"/,
			/Project Settings → API Keys/,
		],
		endpoint: 'getStatus',
		answered: [401],
		flowRan: 0,
	},
	{
		fault: '403 with a flow key (another flow)',
		node: 'Run Flow',
		run: runFlowOf('flow_slow', {}, 'flow'),
		sees: [/not allowed to do this \(403\)/, /flow key can only run the one flow/, /flow_slow/],
		endpoint: 'run',
		answered: [403],
		flowRan: 0,
	},
	{
		fault: '403 with a flow key (anything but a run)',
		node: 'Query Index',
		run: getStatus('idx_docs', 'flow'),
		sees: [
			/not allowed to do this \(403\)/,
			/flow key can only run the one flow it was made for/,
			/BotDojo said: ".*flow_echo.*"/,
		],
		endpoint: 'getStatus',
		answered: [403],
		flowRan: 0,
	},
	{
		fault: '404 account',
		node: 'Query Index',
		run: getStatus('idx_docs', 'main', { accountId: 'acc_other' }),
		sees: [
			/could not find.*acc_other/,
			/Check the Account ID of the BotDojo API credential \("acc_other"\)/,
			/Path called: POST \/api\/v1\/accounts\/acc_other\/projects\/proj_demo\/indexes\/getStatus/,
		],
		notSees: [/index "idx_docs"/],
		endpoint: 'getStatus',
		answered: [404],
		flowRan: 0,
	},
	{
		fault: '404 project',
		node: 'Run Flow',
		run: runFlowWith({ projectId: 'proj_other' }),
		sees: [
			/could not find.*proj_other/,
			/Check the Project ID of the BotDojo API credential \("proj_other"\)/,
		],
		endpoint: 'run',
		answered: [404],
		flowRan: 0,
	},
	{
		fault: '404 flow',
		node: 'Run Flow',
		run: runFlowOf('flow_nope'),
		sees: [/could not find.*flow_nope/, /Check the Flow ID in the node \("flow_nope"\)/],
		endpoint: 'run',
		answered: [404],
		flowRan: 0,
	},
	{
		fault: '404 flow version',
		node: 'Run Flow',
		run: runFlowOf('flow_echo', { options: { version: '99' } }),
		sees: [/could not find.*Release '99' of flow 'flow_echo'/],
		endpoint: 'run',
		answered: [404],
		flowRan: 0,
	},
	{
		fault: '404 index',
		node: 'Query Index',
		run: getStatus('idx_nope'),
		sees: [
			/could not find.*idx_nope/,
			/Check the Index ID in the node \("idx_nope"\)/,
			/Path called: POST \/api\/v1\/accounts\/acc_demo\/projects\/proj_demo\/indexes\/getStatus/,
		],
		notSees: [/project "proj_demo"/],
		endpoint: 'getStatus',
		answered: [404],
		flowRan: 0,
	},
	{
		fault: '404 document (logical path)',
		node: 'Upload Document',
		run: getByLogicalPath('kb/none.md'),
		sees: [
			/could not find.*kb\/none\.md/,
			/Check the Logical Path in the node \("kb\/none\.md"\)/,
			/Path called: POST .*\/documents\/loadByLogicalPath/,
		],
		endpoint: 'loadByLogicalPath',
		answered: [404],
		flowRan: 0,
	},
	{
		fault: '400 (session BotDojo does not know)',
		node: 'Run Flow',
		run: runFlowOf('flow_echo', { sessionMode: 'continue', sessionId: 'ses_gone' }),
		sees: [
			/refused the request as invalid/,
			/Error loading session ses_gone/,
			/session "ses_gone"/,
		],
		endpoint: 'run',
		answered: [400],
		flowRan: 0,
	},
	{
		fault: '429, Retry-After within the bounds: retried',
		node: 'Run Flow',
		arm: () => env.emu.injectFault('429;retryAfter=0', { endpoint: 'run', times: 2 }),
		run: runFlowOf('flow_echo'),
		answer: 'Echo #1: Hi',
		endpoint: 'run',
		answered: [429, 429, 200],
		flowRan: 1,
	},
	{
		fault: '429, Retry-After beyond the bounds: not waited for',
		node: 'Query Index',
		arm: () =>
			env.emu.injectFault({ type: '429', retryAfter: 120 }, { endpoint: 'getStatus', times: 1 }),
		run: getStatus(),
		// Query Index has no Concurrency option: the advice names none.
		sees: [/limiting the request rate \(429\)/, /wait 120 s/, /Send fewer requests at once/],
		notSees: [RETRY_QUESTION, /Concurrency/],
		endpoint: 'getStatus',
		answered: [429],
		flowRan: 0,
	},
	{
		fault: '500',
		node: 'Run Flow',
		arm: () => env.emu.injectFault('500', { endpoint: 'run', times: 5 }),
		run: runFlowOf('flow_echo'),
		sees: [/could not handle the request \(500\)/, /not retried automatically/],
		endpoint: 'run',
		answered: [500],
		// The emulator answers before running; the node cannot know that of the real service.
		flowRan: 0,
		mayHaveRun: true,
	},
	{
		fault: '500',
		node: 'Query Index',
		arm: () =>
			env.emu.injectFault({ type: '500', retryAfter: 120 }, { endpoint: 'getStatus', times: 1 }),
		run: getStatus(),
		sees: [/could not handle the request \(500\)/, /Try again later/],
		notSees: [RETRY_QUESTION],
		endpoint: 'getStatus',
		answered: [500],
		flowRan: 0,
	},
	{
		fault: '503: retried (a blocking run too)',
		node: 'Run Flow',
		arm: () => env.emu.injectFault('503;retryAfter=0', { endpoint: 'run' }),
		run: runFlowOf('flow_echo', { options: { streaming: false } }),
		answer: 'Echo #1: Hi',
		endpoint: 'run',
		answered: [503, 200],
		flowRan: 1,
	},
	{
		fault: '503, Retry-After beyond the bounds: not waited for',
		node: 'Query Index',
		arm: () =>
			env.emu.injectFault({ type: '503', retryAfter: 120 }, { endpoint: 'getStatus', times: 1 }),
		run: getStatus(),
		sees: [/temporarily unavailable \(503\)/, /Try again in a few minutes/],
		notSees: [RETRY_QUESTION],
		endpoint: 'getStatus',
		answered: [503],
		flowRan: 0,
	},
];

describe('What happens when… BotDojo answers with an error', () => {
	it.each(rows)('$fault ($node)', async (row) => {
		row.arm?.();
		const result = await row.run();
		if (row.answer !== undefined) {
			expect(result.error).toBeUndefined();
			expect(result.items[0].json.text).toBe(row.answer);
		} else {
			const seen = whatUserSees(result);
			for (const phrase of row.sees ?? []) expect(seen).toMatch(phrase);
			for (const phrase of row.notSees ?? []) expect(seen).not.toMatch(phrase);
			if (row.mayHaveRun) expect(seen).toMatch(MAY_HAVE_RUN);
			else expect(seen).not.toMatch(MAY_HAVE_RUN);
			expect((result.error as { httpCode?: string }).httpCode).toBe(String(row.answered.at(-1)));
		}
		expect(statusesOf(env, row.endpoint)).toEqual(row.answered);
		expect(flowRuns(env)).toBe(row.flowRan);
		// A retried run request is the same request each time.
		expect(new Set(runBodies(env).map((body) => JSON.stringify(body))).size).toBeLessThanOrEqual(1);
	});
});
