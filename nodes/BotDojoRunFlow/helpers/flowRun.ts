/**
 * One run of a flow, wired to the node: the transport's `runFlow` does the request, its deadline
 * and the reading of its answer; its events go to the collector (tool calls, steps, logs) and,
 * live, through the canvas filter to the token forwarder; `output` builds the item.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { asNodeError } from '../../shared/itemErrors';
import { runFlow } from '../../shared/transport/run';
import { RunCollector } from './collector';
import { answerOf, canForward, CanvasFilter, outputJson, TokenForwarder } from './output';
import { RUN_WORDS, type RunOptions } from './runOptions';

interface FlowRun {
	flowId: string;
	body: IDataObject;
	options: RunOptions;
	itemIndex: number;
	sessionId?: string;
}

export interface RunOutcome {
	json: IDataObject;
	sessionId?: string;
	/** A flow that reported status "error" when On Flow Error is Fail (thrown by the caller). */
	failure?: Error;
}

/** A run of the item's flow in the session given (none: a new one). */
export type RunIn = (sessionId: string | undefined) => Promise<RunOutcome>;

export async function runFlowOnce(ctx: IExecuteFunctions, run: FlowRun) {
	const { options, itemIndex } = run;
	// Live forwarding only where the workflow streams its response.
	const forwarder =
		canForward(ctx) && options.forwardTokens ? new TokenForwarder(ctx, itemIndex) : undefined;
	// Canvas markup stays out of the chat: only what cannot become markup goes on.
	const live = options.keepCanvasMarkup ? undefined : new CanvasFilter();
	const forward = (token: string) => {
		const shown = live ? live.push(token) : token;
		if (shown) forwarder?.token(shown);
	};
	const collector = new RunCollector(
		{ logs: options.includeLogs, events: options.includeEvents, steps: !options.simplify },
		forwarder ? forward : undefined,
	);
	const { record, streamed, failure } = await runFlow(ctx, {
		// The run and its limits (streaming, timeouts, line size, retry) under the transport's names.
		...run,
		...options,
		options: options.request,
		cancelSignal: ctx.getExecutionCancelSignal(),
		failOnFlowError: options.onFlowError === 'fail',
		words: RUN_WORDS,
		stream: {
			began: () => forwarder?.begin(),
			event: (value) => collector.add(value),
			chunkRead: forwarder ? () => forwarder.flush() : undefined,
			// A broken stream sends an `error` chunk itself only with Continue On Fail, as n8n
			// sends one for a node that fails.
			broke: (message) => (ctx.continueOnFail() ? forwarder?.error(message) : undefined),
		},
	}).catch((error: unknown) => Promise.reject(asNodeError(ctx, error, itemIndex)));
	if (streamed) {
		const rest = live?.end();
		if (rest) forwarder?.token(rest);
	}
	const events = streamed ? collector : undefined;
	const answered = answerOf(record, events, options.keepCanvasMarkup);
	forwarder?.end(answered.text);
	const session = record.flow_session_id;
	return {
		json: outputJson(record, options, answered, events),
		sessionId: typeof session === 'string' ? session : undefined,
		failure,
	};
}
