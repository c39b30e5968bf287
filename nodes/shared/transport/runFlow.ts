/**
 * Running a flow (Style A body `{ body, options }`). The run is not repeatable: once BotDojo
 * accepted it, the flow may have run, so nothing after acceptance is retried.
 */
import {
	NodeApiError,
	type IDataObject,
	type IExecuteFunctions,
	type JsonObject,
} from 'n8n-workflow';

import { retryAdvice, saidByService } from './errors';
import { knownApiKey, withCancelSignal } from './project';
import { quoteAnswer, redact } from './redaction';
import {
	sendWithRetries,
	type BotDojoContext,
	type FullResponse,
	type RequestSettings,
} from './request';

export { DeadlinePassed, RunDeadline, WAIT_NOT_NEEDED, deadlineMessage } from './runDeadline';
export { LONGEST_WAIT_MS } from './wait';

/**
 * POSTs a run; `stream` asks for the body as a readable stream (NDJSON) instead of parsed JSON.
 * `settings.abortSignal` aborts the request and its stream, also after the answer began: n8n's
 * helper replaces a request's signal by the execution's, so the helper is called on a context
 * whose execution signal is this one (link it to the execution's signal for Stop to work).
 */
export async function runFlowRequest(
	this: IExecuteFunctions,
	flowId: string,
	payload: { body: IDataObject; options: IDataObject },
	settings: RequestSettings,
	stream: boolean,
): Promise<FullResponse> {
	const signal = settings.abortSignal;
	const ctx = signal ? withCancelSignal(this, signal) : this;
	return await sendWithRetries.call(
		ctx,
		'POST',
		['flows', flowId, 'run'],
		payload as unknown as IDataObject,
		{ ...settings, repeatable: false },
		stream ? { encoding: 'stream' } : {},
	);
}

/** What a broken run stream reports (the NDJSON reader's NdjsonStreamError has this shape). */
export interface RunStreamFailure {
	kind: string;
	message: string;
	events: number;
}

const STREAM_FAILURE_HINTS: Record<string, string> = {
	malformed: 'BotDojo sent a line that is not JSON in the middle of the stream.',
	oversize:
		'One line of the stream was larger than the option Max Stream Line (MiB) allows; it was refused so that it could not use up the memory of n8n. Raise the option if the flow really sends such large events.',
	incomplete: "The stream closed before BotDojo sent the flow's result.",
	idle: 'Raise the Idle Timeout option if the flow pauses this long on purpose.',
	timeout: 'Raise the Timeout option if the flow needs longer.',
	dropped: 'The connection broke: BotDojo, a proxy or the network closed it.',
	cancelled: 'The execution was stopped.',
};

/** A run stream that broke after BotDojo accepted the run. */
export function runStreamError(
	ctx: BotDojoContext,
	failure: RunStreamFailure,
	settings: RequestSettings,
): NodeApiError {
	const flow = settings.subject?.flowId;
	const hint = STREAM_FAILURE_HINTS[failure.kind] ?? '';
	// A malformed line is quoted in the message: the key is kept out of it.
	const message = redact(failure.message, knownApiKey(ctx));
	const lookUp = flow
		? ` Look the run up among the flow requests of flow "${flow}" in BotDojo before running it again.`
		: '';
	return new NodeApiError(
		ctx.getNode(),
		{ message, kind: failure.kind, eventsReceived: failure.events } as JsonObject,
		{
			message,
			description: `${hint} The flow may have run, partly or fully.${lookUp} ${retryAdvice(false)}`,
			itemIndex: settings.itemIndex,
		},
	);
}

/** A run whose record came back with status `error` (the flow itself failed). */
export function flowReportedError(
	ctx: BotDojoContext,
	record: IDataObject,
	settings: RequestSettings,
): NodeApiError {
	const key = knownApiKey(ctx);
	const said =
		saidByService(record.response, key) ?? saidByService(record, key) ?? 'no details given';
	const flow = String(record.flow_id ?? settings.subject?.flowId ?? '');
	return new NodeApiError(
		ctx.getNode(),
		{
			message: said,
			flowRequestId: (record.id as string) ?? null,
			flowSessionId: (record.flow_session_id as string) ?? null,
		} as JsonObject,
		{
			message: `The flow reported an error: ${said}`,
			description: `BotDojo ran flow "${flow}" (flow request "${String(record.id ?? '')}") and it ended with status "error". To branch on this in the workflow instead, set the option On Flow Error to Output the Record. ${retryAdvice(false)}`,
			itemIndex: settings.itemIndex,
		},
	);
}

/**
 * An answer to a run that is not a flow request record: `what` it is, then the start of the
 * answer's text (`sample`, redacted before it is cut).
 */
export function unexpectedRunAnswer(
	ctx: BotDojoContext,
	whatItIs: string,
	settings: RequestSettings,
	sample?: string,
): NodeApiError {
	const what =
		sample === undefined ? whatItIs : `${whatItIs}${quoteAnswer(sample, knownApiKey(ctx), 200)}`;
	const endpoint = `flows/${settings.subject?.flowId ?? '…'}/run`;
	return new NodeApiError(ctx.getNode(), { message: what } as JsonObject, {
		message: `BotDojo's answer to ${endpoint} is not what that endpoint returns: expected a flow request record (an object), got ${what}`,
		description: `The flow may have run. Check the Base URL in the BotDojo API credential. ${retryAdvice(false)}`,
		itemIndex: settings.itemIndex,
	});
}
