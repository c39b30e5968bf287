/**
 * What one run needs from the node's Options (read and checked by actions/options.ts), and
 * the names the panel shows for the options that messages mention: kept here, below both the
 * parameters that display them and the helpers that word errors with them.
 */
import type { IDataObject } from 'n8n-workflow';

/** Short, as in n8n's own nodes (longer names are cut off in the panel). */
export const OPTION_NAMES = {
	concurrency: 'Concurrency',
	timeout: 'Timeout (Seconds)',
	idleTimeout: 'Idle Timeout (Seconds)',
	maxAttempts: 'Attempts When Busy',
	maxRetryWait: 'Retry Wait (Seconds)',
	maxLineMiB: 'Max Stream Line (MiB)',
	messageProperty: 'Message Property',
	onFlowError: 'On Flow Error',
	override: 'Override',
	overridePath: 'Property Path',
	evalRuns: 'Evaluations',
	flowEvalId: 'Flow Eval ID',
	externalInput: 'External Input (JSON)',
} as const;

/** How a run's failures name the options that change them. */
export const RUN_WORDS = {
	timeout: 'Timeout',
	idleTimeout: 'Idle Timeout',
	maxLine: OPTION_NAMES.maxLineMiB,
	onFlowError: OPTION_NAMES.onFlowError,
	rateLimit: `Lower the option ${OPTION_NAMES.concurrency} or raise the option ${OPTION_NAMES.maxRetryWait}`,
};

export interface RunOptions {
	/** The run's `options` as sent, without `flow_session_id` (the session decides that). */
	request: IDataObject;
	streaming: boolean;
	/** Top-level Simplify; an old saved Options › Output of Raw still decides. */
	simplify: boolean;
	/** Run Flow as a tool with Output › Selected Fields: the simplified fields kept. */
	fields?: string[];
	/** Node version 1: the output keeps `duration` and empty lists, as saved workflows expect. */
	legacyOutput: boolean;
	/** An empty intermediateSteps stays in the output: an Evaluation node may read it. */
	keepEmptySteps: boolean;
	includeEvents: boolean;
	includeLogs: boolean;
	timeoutMs: number;
	idleTimeoutMs: number;
	onFlowError: 'fail' | 'output';
	forwardTokens: boolean;
	/** The answer's text keeps canvas markup (`<|dojo-canvas|>…`), live and final. */
	keepCanvasMarkup: boolean;
	/** Attempts in all, and the longest the waits between may add up to (ms). */
	retry: { maxAttempts: number; maxTotalWaitMs: number };
	maxLineChars: number;
}
