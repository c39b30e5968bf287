/**
 * One run of a flow over HTTP: the request (429/503 retried by the transport), then either the
 * NDJSON stream read as it arrives or the whole record. One AbortController per run is ended
 * by Stop, by the run's deadline (Timeout, Idle Timeout) and by the stream reader; it closes
 * the connection itself.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { asNodeError } from '../../shared/itemErrors';
import { checkedRunRecord, shapeOf } from '../../shared/transport/answers';
import { runFlow } from '../../shared/transport/api';
import { NdjsonStreamError, readNdjsonStream, rope } from '../../shared/transport/ndjson';
import { isReadable } from '../../shared/transport/bounds';
import { AnswerStream } from './answerStream';
import { RunCollector } from './collector';
import { answerOf, CanvasFilter, outputJson, TokenForwarder } from './output';
import { RunDeadline } from './runDeadline';
import {
	flowReportedError,
	RATE_LIMIT_ADVICE,
	runStreamError,
	unexpectedRunAnswer,
	unfinishedRunError,
} from './runErrors';
import { OPTION_NAMES, type RunOptions } from './runOptions';

export interface FlowRun {
	flowId: string;
	body: IDataObject;
	options: RunOptions;
	itemIndex: number;
	sessionId?: string;
	/** Live forwarding is possible (the workflow streams its response). */
	forward: boolean;
	/**
	 * Whether a broken stream sends an `error` chunk itself: only with Continue On Fail, as n8n
	 * sends one for a node that fails.
	 */
	chunkErrors: boolean;
	cancelSignal?: AbortSignal;
}

export interface RunOutcome {
	json: IDataObject;
	sessionId?: string;
	/** A flow that reported status "error" when On Flow Error is Fail (thrown by the caller). */
	failure?: Error;
}

/** The reason of a run's own hang-up after its answer: one value, not a new error per run. */
const RUN_ENDED = new Error('The run had ended');

export async function runFlowOnce(ctx: IExecuteFunctions, run: FlowRun): Promise<RunOutcome> {
	const runAbort = new AbortController();
	const deadline = new RunDeadline(run.options);
	const onCancel = () => runAbort.abort(run.cancelSignal?.reason);
	const onDeadline = () => runAbort.abort(deadline.reason);
	if (run.cancelSignal?.aborted) onCancel();
	run.cancelSignal?.addEventListener('abort', onCancel, { once: true });
	deadline.signal.addEventListener('abort', onDeadline, { once: true });
	try {
		return await request(ctx, run, runAbort, deadline);
	} finally {
		deadline.end();
		deadline.signal.removeEventListener('abort', onDeadline);
		run.cancelSignal?.removeEventListener('abort', onCancel);
	}
}

async function request(
	ctx: IExecuteFunctions,
	run: FlowRun,
	runAbort: AbortController,
	deadline: RunDeadline,
): Promise<RunOutcome> {
	const { options, itemIndex } = run;
	const forwarder =
		run.forward && options.forwardTokens ? new TokenForwarder(ctx, itemIndex) : undefined;
	const fail = (error: unknown, where: string) =>
		interrupted(ctx, run, deadline, where) ?? asNodeError(ctx, error, itemIndex);

	let response: Awaited<ReturnType<typeof runFlow>>;
	try {
		response = await runFlow(ctx, {
			flowId: run.flowId,
			sessionId: run.sessionId,
			body: run.body,
			options: options.request,
			itemIndex,
			abortSignal: runAbort.signal,
			retry: options.retry,
			rateLimitAdvice: RATE_LIMIT_ADVICE,
		});
		if (!options.streaming) {
			const record = await readRecord(ctx, run, response.body, deadline);
			return finish(ctx, run, record, undefined, forwarder);
		}
	} catch (error) {
		throw fail(error, '');
	}

	const body = response.body;
	if (!isReadable(body) || isPlainJson(response.headers)) {
		deadline.answerBegan('record');
		let record: IDataObject;
		try {
			record = await readRecord(ctx, run, body, deadline);
		} catch (error) {
			throw fail(error, ' while its answer was being read');
		}
		return finish(ctx, run, record, undefined, forwarder);
	}
	deadline.answerBegan('stream');
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
	forwarder?.begin();
	const stream = new AnswerStream(body, runAbort, RUN_ENDED);
	try {
		const result = await readNdjsonStream(stream.chunks, {
			onValue: (value) => collector.add(value),
			onChunkRead: forwarder ? () => forwarder.flush() : undefined,
			stopSource: (reason) => {
				runAbort.abort(reason);
				(body as { destroy?: (error: Error) => void }).destroy?.(reason);
			},
			maxLineChars: options.maxLineChars,
			deadline,
			cancelSignal: run.cancelSignal,
		});
		const final = result.final;
		if (final === null || typeof final !== 'object' || Array.isArray(final)) {
			throw unexpectedRunAnswer(ctx, `a stream line that is ${shapeOf(final)}`, run);
		}
		const rest = live?.end();
		if (rest) forwarder?.token(rest);
		return finish(ctx, run, final as IDataObject, collector, forwarder);
	} catch (error) {
		if (!(error instanceof NdjsonStreamError)) throw asNodeError(ctx, error, itemIndex);
		if (run.chunkErrors) forwarder?.error(error.message);
		throw runStreamError(ctx, error, run);
	} finally {
		await stream.close();
	}
}

/** The error of a run that its deadline or a Stop ended, or undefined when neither did. */
function interrupted(
	ctx: IExecuteFunctions,
	run: FlowRun,
	deadline: RunDeadline,
	/** Where the run was, for a Stop: '' (before BotDojo answered) or ' while …'. */
	where: string,
): Error | undefined {
	const passed = deadline.reason;
	if (passed) {
		return runStreamError(ctx, { kind: passed.kind, message: passed.message, events: 0 }, run);
	}
	if (run.cancelSignal?.aborted) {
		const message = where
			? `The run was canceled${where}`
			: 'The run was canceled before BotDojo answered';
		return runStreamError(ctx, { kind: 'cancelled', message, events: 0 }, run);
	}
	return undefined;
}

function finish(
	ctx: IExecuteFunctions,
	run: FlowRun,
	answer: IDataObject,
	collector: RunCollector | undefined,
	forwarder: TokenForwarder | undefined,
): RunOutcome {
	const record = checkedRunRecord(ctx, answer, run.flowId, run.itemIndex);
	const answered = answerOf(record, collector, run.options.keepCanvasMarkup);
	forwarder?.end(answered.text);
	const session = record.flow_session_id;
	return {
		json: outputJson(record, run.options, answered, collector),
		sessionId: typeof session === 'string' ? session : undefined,
		failure:
			record.status === 'pending' || record.status === 'running'
				? unfinishedRunError(ctx, record, run)
				: record.status === 'error' && run.options.onFlowError === 'fail'
					? flowReportedError(ctx, record, run)
					: undefined,
	};
}

function isPlainJson(headers: Record<string, unknown> | undefined): boolean {
	const type = String(headers?.['content-type'] ?? '');
	return /json/i.test(type) && !/ndjson|x-json-stream|jsonl/i.test(type);
}

/** The start of a whole answer kept to quote it if it is not JSON (more than the quote: the
 *  key is redacted before the quote is cut). */
const HEAD_CHARS = 1000;

/** The chunks of a whole answer as they arrive, each stamped on the run's deadline. */
async function* arrivals(
	ctx: IExecuteFunctions,
	run: FlowRun,
	body: AsyncIterable<Uint8Array | string>,
	deadline: RunDeadline,
): AsyncGenerator<Uint8Array | string> {
	let bytes = 0;
	try {
		for await (const chunk of body) {
			deadline.chunk();
			bytes += chunk.length;
			yield chunk;
		}
	} catch (error) {
		const detail = (error as Error)?.message ?? String(error);
		const message = `The connection dropped before BotDojo's whole answer had arrived (${detail}); ${bytes} bytes had arrived`;
		throw runStreamError(ctx, { kind: 'dropped', message, events: 0 }, run);
	}
}

/**
 * A whole (non-streamed) answer: a flow request record, maybe still as text or a stream (a
 * streamed run that BotDojo answered whole). A stream may be three times Max Stream Line, as
 * the record carries the answer twice.
 */
async function readRecord(
	ctx: IExecuteFunctions,
	run: FlowRun,
	body: unknown,
	deadline: RunDeadline,
): Promise<IDataObject> {
	let answer = body;
	if (isReadable(answer)) {
		const decoder = new TextDecoder('utf-8');
		const parts: string[] = [];
		const limit = 3 * run.options.maxLineChars;
		let head = '';
		let length = 0;
		for await (const chunk of arrivals(ctx, run, answer, deadline)) {
			const text = typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
			length += text.length;
			if (length > limit) {
				const message = `BotDojo's whole answer is longer than ${limit} characters (three times ${OPTION_NAMES.maxLineMiB}) and was refused rather than held in memory`;
				throw runStreamError(ctx, { kind: 'oversize', message, events: 0 }, run);
			}
			if (head.length < HEAD_CHARS) head += text.slice(0, HEAD_CHARS - head.length);
			parts.push(text);
		}
		parts.push(decoder.decode());
		try {
			answer = JSON.parse(rope(parts));
		} catch {
			throw unexpectedRunAnswer(ctx, 'text that is not JSON: ', run, head);
		}
	}
	if (typeof answer === 'string') {
		const text = answer;
		try {
			answer = JSON.parse(text);
		} catch {
			throw unexpectedRunAnswer(ctx, 'text that is not JSON: ', run, text);
		}
	}
	if (answer === null || typeof answer !== 'object' || Array.isArray(answer)) {
		throw unexpectedRunAnswer(ctx, '', run, JSON.stringify(answer) ?? String(answer));
	}
	return answer as IDataObject;
}
