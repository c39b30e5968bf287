/**
 * One run of a flow over HTTP: the request (429/503 retried by the transport), then either the
 * NDJSON stream read as it arrives or the whole record. One AbortController per run is ended
 * by Stop, by the timeout and by the stream reader; it closes the connection itself.
 */
import { sleep, type IDataObject, type IExecuteFunctions } from 'n8n-workflow';

import { asNodeError } from '../../shared/itemErrors';
import {
	flowReportedError,
	isReadable,
	LongLine,
	NdjsonStreamError,
	readNdjsonStream,
	runFlowRequest,
	runStreamError,
	shapeOf,
	TIMER_NOT_NEEDED,
	unexpectedRunAnswer,
	type RequestSettings,
} from '../../shared/transport';
import type { RunOptions } from '../actions/readOptions';
import { OPTION_NAMES } from '../actions/options';
import { RunCollector } from './collector';
import { TokenForwarder } from './forwarder';
import { answerText, outputJson } from './output';

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

export async function runFlowOnce(ctx: IExecuteFunctions, run: FlowRun): Promise<RunOutcome> {
	const runAbort = new AbortController();
	const onCancel = () => runAbort.abort(run.cancelSignal?.reason);
	if (run.cancelSignal?.aborted) onCancel();
	run.cancelSignal?.addEventListener('abort', onCancel, { once: true });
	try {
		return await request(ctx, run, runAbort);
	} finally {
		run.cancelSignal?.removeEventListener('abort', onCancel);
	}
}

async function request(
	ctx: IExecuteFunctions,
	run: FlowRun,
	runAbort: AbortController,
): Promise<RunOutcome> {
	const { flowId, options, sessionId, itemIndex } = run;
	const settings: RequestSettings = {
		subject: sessionId ? { flowId, sessionId } : { flowId },
		itemIndex,
		repeatable: false,
		abortSignal: runAbort.signal,
		retry: options.retry,
		// 0 turns off n8n's own 300 s default: the Timeout option alone bounds the run (timer below).
		timeout: 0,
	};
	const payload = {
		body: run.body,
		options: sessionId ? { flow_session_id: sessionId, ...options.request } : options.request,
	};
	const forwarder =
		run.forward && options.forwardTokens ? new TokenForwarder(ctx, itemIndex) : undefined;

	// Until BotDojo answers, the total timeout is kept here; a stream's reader then keeps it.
	const startedAt = Date.now();
	let timedOut = false;
	const stopTimer = options.timeoutMs > 0 ? new AbortController() : undefined;
	if (stopTimer) {
		sleep(options.timeoutMs, stopTimer.signal).then(
			() => {
				timedOut = true;
				runAbort.abort();
			},
			() => {},
		);
	}
	let response: Awaited<ReturnType<typeof runFlowRequest>>;
	try {
		response = await runFlowRequest.call(ctx, flowId, payload, settings, options.streaming);
		if (!options.streaming) {
			const record = await readRecord(ctx, response.body, settings, options);
			return finish(ctx, run, settings, record, undefined, forwarder);
		}
	} catch (error) {
		if (timedOut) {
			const message = `BotDojo did not answer within the timeout of ${options.timeoutMs} ms`;
			throw runStreamError(ctx, { kind: 'timeout', message, events: 0 }, settings);
		}
		if (run.cancelSignal?.aborted) {
			const message = 'The run was canceled before BotDojo answered';
			throw runStreamError(ctx, { kind: 'cancelled', message, events: 0 }, settings);
		}
		throw asNodeError(ctx, error, itemIndex);
	} finally {
		stopTimer?.abort(TIMER_NOT_NEEDED);
	}

	const body = response.body;
	if (!isReadable(body) || isPlainJson(response.headers)) {
		const record = await readRecord(ctx, body, settings, options);
		return finish(ctx, run, settings, record, undefined, forwarder);
	}
	const collector = new RunCollector(
		{ logs: options.includeLogs, events: options.includeEvents },
		forwarder ? (token) => forwarder.token(token) : undefined,
	);
	forwarder?.begin();
	try {
		const result = await readNdjsonStream(body, {
			onValue: (value) => collector.add(value),
			onChunkRead: forwarder ? () => forwarder.flush() : undefined,
			stopSource: (reason) => {
				runAbort.abort(reason);
				(body as { destroy?: (error: Error) => void }).destroy?.(reason);
			},
			maxLineChars: options.maxLineChars,
			// The final line repeats the answer: where it equals the streamed text, it is not held twice.
			knownText: () => collector.text.parts(),
			idleTimeoutMs: options.idleTimeoutMs,
			totalTimeoutMs: options.timeoutMs,
			startedAt,
			cancelSignal: run.cancelSignal,
		});
		const final = result.final;
		if (final === null || typeof final !== 'object' || Array.isArray(final)) {
			throw unexpectedRunAnswer(ctx, `a stream line that is ${shapeOf(final)}`, settings);
		}
		return finish(ctx, run, settings, final as IDataObject, collector, forwarder);
	} catch (error) {
		if (!(error instanceof NdjsonStreamError)) throw asNodeError(ctx, error, itemIndex);
		if (run.chunkErrors) forwarder?.error(error.message);
		throw runStreamError(ctx, error, settings);
	}
}

function finish(
	ctx: IExecuteFunctions,
	run: FlowRun,
	settings: RequestSettings,
	record: IDataObject,
	collector: RunCollector | undefined,
	forwarder: TokenForwarder | undefined,
): RunOutcome {
	const text = answerText(record, collector);
	forwarder?.end(text);
	const session = record.flow_session_id;
	return {
		json: outputJson(record, run.options, text, collector),
		sessionId: typeof session === 'string' ? session : undefined,
		failure:
			record.status === 'error' && run.options.onFlowError === 'fail'
				? flowReportedError(ctx, record, settings)
				: undefined,
	};
}

function isPlainJson(headers: Record<string, unknown> | undefined): boolean {
	const type = String(headers?.['content-type'] ?? '');
	return /json/i.test(type) && !/ndjson|x-json-stream|jsonl/i.test(type);
}

/**
 * A whole (non-streamed) answer: a flow request record, maybe still as text or a stream (a
 * streamed run that BotDojo answered whole). A stream is parsed as it arrives (LongLine: its
 * long strings are not held twice) and may be three times Max Stream Line, as the record
 * carries the answer twice.
 */
async function readRecord(
	ctx: IExecuteFunctions,
	body: unknown,
	settings: RequestSettings,
	options: RunOptions,
): Promise<IDataObject> {
	let answer = body;
	if (isReadable(answer)) {
		const decoder = new TextDecoder('utf-8');
		const line = new LongLine();
		const limit = 3 * options.maxLineChars;
		let head = '';
		let length = 0;
		for await (const chunk of answer) {
			const text = typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
			length += text.length;
			if (length > limit) {
				const message = `BotDojo's whole answer is longer than ${limit} characters (three times ${OPTION_NAMES.maxLineMiB}) and was refused rather than held in memory`;
				throw runStreamError(ctx, { kind: 'oversize', message, events: 0 }, settings);
			}
			if (head.length < 200) head += text.slice(0, 200 - head.length);
			line.write(text);
		}
		line.write(decoder.decode());
		try {
			answer = line.end();
		} catch {
			throw unexpectedRunAnswer(ctx, `text that is not JSON: ${head}`, settings);
		}
	}
	if (typeof answer === 'string') {
		const text = answer;
		try {
			answer = JSON.parse(text);
		} catch {
			throw unexpectedRunAnswer(ctx, `text that is not JSON: ${text.slice(0, 200)}`, settings);
		}
	}
	if (answer === null || typeof answer !== 'object' || Array.isArray(answer)) {
		throw unexpectedRunAnswer(ctx, `${JSON.stringify(answer)?.slice(0, 200)}`, settings);
	}
	return answer as IDataObject;
}
