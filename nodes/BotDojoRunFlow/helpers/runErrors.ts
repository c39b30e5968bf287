/**
 * A run's failures after BotDojo accepted it, worded for the user with the options that change
 * them. Never "safe to retry": once accepted, the flow may have run.
 */
import { NodeApiError, type IExecuteFunctions, type JsonObject } from 'n8n-workflow';

import type { FlowRequestRecord } from '../../shared/transport/answers';
import { retryAdvice, saidByService } from '../../shared/transport/errors';
import { STREAM_LINES, type NdjsonFailure } from '../../shared/transport/ndjson';
import { knownApiKey } from '../../shared/transport/project';
import { quoteAnswer } from '../../shared/transport/redaction';
import { OPTION_NAMES } from './runOptions';

/** Which run failed: for the message and the item. */
export interface RunPlace {
	flowId: string;
	itemIndex: number;
}

/** What a broken run reports (the NDJSON reader's NdjsonStreamError has this shape). */
export interface RunStreamFailure {
	kind: NdjsonFailure;
	message: string;
	events: number;
}

const HINTS: Record<NdjsonFailure, string> = {
	malformed: 'BotDojo sent a line that is not JSON in the middle of the stream.',
	oversize: `One line of the stream was larger than the option ${OPTION_NAMES.maxLineMiB} allows; it was refused so that it could not use up the memory of n8n. Raise the option if the flow really sends such large events.`,
	overlong: `The whole stream was larger than ${STREAM_LINES} times the option ${OPTION_NAMES.maxLineMiB} allows; it was refused so that it could not use up the memory of n8n. Raise the option if the flow really sends this much.`,
	incomplete: "The stream closed before BotDojo sent the flow's result.",
	idle: 'Raise the Idle Timeout option if the flow pauses this long on purpose.',
	timeout: 'Raise the Timeout option if the flow needs longer.',
	dropped: 'The connection broke: BotDojo, a proxy or the network closed it.',
	cancelled: 'The execution was stopped.',
};

/** What the user can change when BotDojo keeps limiting the rate of runs (429). */
export const RATE_LIMIT_ADVICE = `Lower the option ${OPTION_NAMES.concurrency} or raise the option ${OPTION_NAMES.maxRetryWait}`;

/** A run that broke after BotDojo accepted it: its stream, its deadline, a Stop. */
export function runStreamError(
	ctx: IExecuteFunctions,
	failure: RunStreamFailure,
	run: RunPlace,
): NodeApiError {
	// A malformed line is quoted in the message: the runner redacts the key from it.
	const { message } = failure;
	return new NodeApiError(
		ctx.getNode(),
		{ message, kind: failure.kind, eventsReceived: failure.events } as JsonObject,
		{
			message,
			description: `${HINTS[failure.kind]} The flow may have run, partly or fully. Look the run up among the flow requests of flow "${run.flowId}" in BotDojo before running it again. ${retryAdvice(false)}`,
			itemIndex: run.itemIndex,
		},
	);
}

/** A run whose record came back with status `error` (the flow itself failed). */
export function flowReportedError(
	ctx: IExecuteFunctions,
	record: FlowRequestRecord,
	run: RunPlace,
): NodeApiError {
	const key = knownApiKey(ctx);
	const said =
		saidByService(record.response, key) ?? saidByService(record, key) ?? 'no details given';
	const flow = String(record.flow_id ?? run.flowId);
	return new NodeApiError(
		ctx.getNode(),
		{
			message: said,
			flowRequestId: record.id ?? null,
			flowSessionId: record.flow_session_id ?? null,
		} as JsonObject,
		{
			message: `The flow reported an error: ${said}`,
			description: `BotDojo ran flow "${flow}" (flow request "${String(record.id ?? '')}") and it ended with status "error". To branch on this in the workflow instead, set the option ${OPTION_NAMES.onFlowError} to Output the Record. ${retryAdvice(false)}`,
			itemIndex: run.itemIndex,
		},
	);
}

/**
 * A run whose record came back still `pending` or `running`: there is no answer yet, and an
 * empty one must not pass for it.
 */
export function unfinishedRunError(
	ctx: IExecuteFunctions,
	record: FlowRequestRecord,
	run: RunPlace,
): NodeApiError {
	const status = String(record.status);
	const request = String(record.id ?? '');
	return new NodeApiError(
		ctx.getNode(),
		{ message: `status "${status}"`, flowRequestId: record.id ?? null } as JsonObject,
		{
			message: `The flow had not finished when BotDojo answered (status "${status}")`,
			description: `BotDojo answered the run of flow "${run.flowId}" with flow request "${request}" still "${status}", so there is no answer yet. Look that flow request up in BotDojo (or with Export Requests) once it finished, rather than running the flow again. ${retryAdvice(false)}`,
			itemIndex: run.itemIndex,
		},
	);
}

/**
 * An answer to a run that is not a flow request record: `whatItIs`, then the start of the
 * answer's text (`sample`, redacted before it is cut).
 */
export function unexpectedRunAnswer(
	ctx: IExecuteFunctions,
	whatItIs: string,
	run: RunPlace,
	sample?: string,
): NodeApiError {
	const what =
		sample === undefined ? whatItIs : `${whatItIs}${quoteAnswer(sample, knownApiKey(ctx), 200)}`;
	return new NodeApiError(ctx.getNode(), { message: what } as JsonObject, {
		message: `BotDojo's answer to flows/${run.flowId}/run is not what that endpoint returns: expected a flow request record (an object), got ${what}`,
		description: `The flow may have run. Check the Base URL in the BotDojo API credential. ${retryAdvice(false)}`,
		itemIndex: run.itemIndex,
	});
}
