/**
 * Running a flow (`flows/{id}/run`), the whole of it: the request (only 429/503 retried: once
 * BotDojo accepted it the flow may have run), its deadline (Timeout from the start, Idle Timeout
 * once a streamed answer began), its answer read as an NDJSON stream or whole, and the hang-up
 * after the final line. One AbortController per run is ended by Stop, by the deadline and by
 * the stream reader; it closes the connection itself.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { checkRecords, shapeOf, type FlowRequestRecord } from './api';
import {
	errorText,
	ReadFailure,
	runFailure,
	runRecordFailure,
	unexpectedRunAnswer,
	type RunWords,
} from './errors';
import { readNdjsonStream } from './ndjson';
import { withCancelSignal, type RetryPolicy } from './project';
import {
	Deadline,
	headerOf,
	isReadable,
	readWithin,
	sendWithRetries,
	type Readable,
	waitFor,
	WAIT_NOT_NEEDED,
} from './request';

interface RunRequest {
	flowId: string;
	sessionId?: string; // the session to run in; a new one when absent
	body: IDataObject; // the flow's input
	options: IDataObject; // the run's options as sent (stream, version, override, evalOptions…)
	itemIndex: number;
	streaming: boolean;
	timeoutMs: number; // the whole run; 0: no limit
	idleTimeoutMs: number; // the longest pause between two chunks of a streamed answer; 0: none
	maxLineChars: number; // a stream's longest line; a whole answer may be three times it
	retry: RetryPolicy;
	cancelSignal?: AbortSignal;
	/** A record of status "error" is a failure (the node's On Flow Error: Fail). */
	failOnFlowError: boolean;
	words: RunWords;
	/** A streamed answer: `began` before its first event, `event` for each event line,
	 *  `chunkRead` after each network read, `broke` with the message of a stream that broke. */
	stream?: {
		began?(): void;
		event(value: unknown): void;
		chunkRead?(): void;
		broke?(message: string): void;
	};
}

/** How long BotDojo has to end its answer after the final line before the node hangs up. */
export const HANG_UP_AFTER_MS = 1000;

/** The reason of a run's own hang-up after its answer: one value, not a new error per run. */
const RUN_ENDED = new Error('The run had ended');

/** A run's deadline: its words say where the run was (waiting, or reading a stream or record). */
export function runDeadline(limits: { timeoutMs: number; idleTimeoutMs: number }) {
	return new Deadline(
		{ totalMs: limits.timeoutMs, idleMs: limits.idleTimeoutMs },
		(kind, ms, what) => {
			if (kind === 'idle')
				return `${what === 'stream' ? 'The stream' : "BotDojo's answer"} stalled: nothing arrived for ${ms} ms`;
			return what
				? `The run took longer than the timeout of ${ms} ms`
				: `BotDojo did not answer within the timeout of ${ms} ms`;
		},
	);
}

/** Runs the flow once and returns its record, checked, whether its events came as a stream (else
 *  the record came whole), and the record's own failure (unfinished, or "error" with
 *  failOnFlowError) for the caller to throw; a broken run throws its error. */
export async function runFlow(ctx: IExecuteFunctions, run: RunRequest) {
	const runAbort = new AbortController();
	const deadline = runDeadline(run);
	const onCancel = () => runAbort.abort(run.cancelSignal?.reason);
	const onDeadline = () => runAbort.abort(deadline.reason);
	if (run.cancelSignal?.aborted) onCancel();
	run.cancelSignal?.addEventListener('abort', onCancel, { once: true });
	deadline.signal.addEventListener('abort', onDeadline, { once: true });
	try {
		const { record, streamed } = await answerOf(ctx, run, runAbort, deadline);
		checkRecords(ctx, record, [record], 'flowRequest', ['flows', run.flowId, 'run'], run.itemIndex);
		const { status } = record;
		const unfinished = status === 'pending' || status === 'running';
		const failed = unfinished || (status === 'error' && run.failOnFlowError);
		const failure = failed ? runRecordFailure(ctx, record, run) : undefined;
		return { record: record as FlowRequestRecord, streamed, failure };
	} finally {
		deadline.end();
		deadline.signal.removeEventListener('abort', onDeadline);
		run.cancelSignal?.removeEventListener('abort', onCancel);
	}
}

async function answerOf(
	ctx: IExecuteFunctions,
	run: RunRequest,
	runAbort: AbortController,
	deadline: Deadline,
) {
	const { flowId, sessionId, itemIndex } = run;
	/** The error of a run that its deadline or a Stop ended, else `error` as it is. */
	const interrupted = (error: unknown, where: string) => {
		const passed = deadline.reason;
		if (passed) return runFailure(ctx, passed, run);
		if (!run.cancelSignal?.aborted) return error;
		const message = `The run was canceled ${where || 'before BotDojo answered'}`;
		return runFailure(ctx, new ReadFailure('cancelled', message), run);
	};
	// timeout 0 turns off n8n's own 300 s default: the run's deadline alone bounds it. n8n's
	// helper puts the execution's signal on a request, so the context's is the run's.
	const { body, headers } = await sendWithRetries(
		withCancelSignal(ctx, runAbort.signal),
		'POST',
		['flows', flowId, 'run'],
		{
			body: run.body,
			options: sessionId ? { flow_session_id: sessionId, ...run.options } : run.options,
		},
		{
			subject: { flowId, sessionId },
			itemIndex,
			abortSignal: runAbort.signal,
			retry: run.retry,
			rateLimitAdvice: run.words.rateLimit,
			timeout: 0,
			repeatable: false,
			readByCaller: true,
		},
	).catch((error: unknown) => Promise.reject(interrupted(error, '')));
	// A streamed run may be answered whole (its events then are not sent).
	const type = headerOf(headers, 'content-type') ?? '';
	const plainJson = /json/i.test(type) && !/ndjson|x-json-stream|jsonl/i.test(type);
	if (!run.streaming || !isReadable(body) || plainJson) {
		if (run.streaming) deadline.began('record');
		const record = await wholeRecord(ctx, run, body, deadline).catch((error: unknown) =>
			Promise.reject(interrupted(error, run.streaming ? 'while its answer was being read' : '')),
		);
		return { record, streamed: false };
	}
	deadline.began('stream');
	return { record: await streamed(ctx, run, body, runAbort, deadline), streamed: true };
}

/** A Node stream as n8n's helper gives a body: iterated without destroying it on leaving. */
interface NodeReadable {
	iterator?: (options: { destroyOnReturn: boolean }) => Readable;
	destroy?: (error?: Error) => void;
	destroyed?: boolean;
	closed?: boolean;
	once?: (event: 'close', listener: () => void) => void;
}

async function streamed(
	ctx: IExecuteFunctions,
	run: RunRequest,
	body: Readable,
	runAbort: AbortController,
	deadline: Deadline,
) {
	const { stream } = run;
	// Leaving a Node stream's loop early destroys it with an AbortError whose stack trace n8n's
	// source maps format (the largest CPU cost of the node's own code): it is let go in hangUp.
	const node = body as NodeReadable;
	const chunks =
		typeof node.iterator === 'function' ? node.iterator({ destroyOnReturn: false }) : body;
	stream?.began?.();
	try {
		const final = await readNdjsonStream(chunks, {
			onValue: (value) => {
				// Every line is an event `{ "tag": … }` but the final one (the record).
				if (shapeOf(value) !== 'an object' || (value as { tag?: unknown }).tag === undefined)
					return true;
				stream?.event(value);
				return false;
			},
			onChunkRead: stream?.chunkRead,
			stopSource: (reason) => {
				runAbort.abort(reason);
				node.destroy?.(reason);
			},
			maxLineChars: run.maxLineChars,
			deadline,
			cancelSignal: run.cancelSignal,
		}).then(
			(read) => read.final,
			(error: unknown) => {
				if (!(error instanceof ReadFailure)) throw error;
				stream?.broke?.(error.message);
				throw runFailure(ctx, error, run);
			},
		);
		if (shapeOf(final) !== 'an object')
			throw unexpectedRunAnswer(ctx, `a stream line that is ${shapeOf(final)}`, run);
		return final as IDataObject;
	} finally {
		if (typeof node.iterator === 'function') await hangUp(node, runAbort);
	}
}

/**
 * The reader is done (final line, Stop, a limit or an error): the body is destroyed here with no
 * error made. n8n's helper (axios) wraps it, so that does not close the connection; BotDojo ends
 * it right after the final line, and the run waits for that (a moment). A connection still open
 * HANG_UP_AFTER_MS later (a server or proxy that holds it) is hung up through the run's abort
 * signal (with an error of axios' own, which is why that is not done for every run).
 */
async function hangUp(stream: NodeReadable, runAbort: AbortController) {
	if (!stream.destroyed) stream.destroy?.();
	if (stream.closed || runAbort.signal.aborted || typeof stream.once !== 'function') return;
	const closed = new AbortController();
	stream.once('close', () => closed.abort(WAIT_NOT_NEEDED));
	const stillOpen = await waitFor(HANG_UP_AFTER_MS, closed.signal).then(
		() => true,
		() => false,
	);
	if (stillOpen) runAbort.abort(RUN_ENDED);
}

/**
 * A whole (non-streamed) answer: a flow request record, maybe still as text or a stream (a
 * streamed run that BotDojo answered whole). A stream may be three times Max Stream Line, as
 * the record carries the answer twice.
 */
async function wholeRecord(
	ctx: IExecuteFunctions,
	run: RunRequest,
	body: unknown,
	deadline: Deadline,
) {
	let answer = body;
	if (isReadable(body)) {
		const decoder = new TextDecoder('utf-8');
		// Joined as it comes, without copying: V8 keeps long joined strings as ropes.
		let text = '';
		const limit = 3 * run.maxLineChars;
		const chunks = readWithin(body, {
			maxBytes: limit,
			tooLarge: `BotDojo's whole answer is longer than ${limit} characters (three times ${run.words.maxLine}) and was refused rather than held in memory`,
			deadline,
		});
		let bytes = 0;
		try {
			for await (const chunk of chunks) {
				bytes += chunk.length;
				text += decoder.decode(chunk, { stream: true });
			}
		} catch (error) {
			const message = `The connection dropped before BotDojo's whole answer had arrived (${errorText(error)}); ${bytes} bytes had arrived`;
			const failure = error instanceof ReadFailure ? error : new ReadFailure('dropped', message);
			throw runFailure(ctx, failure, run);
		}
		answer = text + decoder.decode();
	}
	if (typeof answer === 'string') {
		const text = answer;
		try {
			answer = JSON.parse(text);
		} catch {
			throw unexpectedRunAnswer(ctx, 'text that is not JSON: ', run, text);
		}
	}
	if (shapeOf(answer) !== 'an object')
		throw unexpectedRunAnswer(ctx, '', run, JSON.stringify(answer) ?? String(answer));
	return answer as IDataObject;
}
