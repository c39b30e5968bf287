/** The output item of a run: simplified (what most workflows need) or the raw record. */
import type { IDataObject } from 'n8n-workflow';

import { answerOfRecord, errorMessageOfRecord } from '../../shared/params/simplify';
import type { FlowRequestRecord } from '../../shared/transport/api';
import type { RunOptions } from './runOptions';
import { withoutCanvases } from './canvas';
import type { RunCollector } from './collector';
import { agentStepsOf, asObject, resolveToolCalls } from './toolCalls';

/** The answer: its text, and the canvases that its markup held. */
export interface Answer {
	text: string;
	canvases: unknown[];
}

/**
 * The answer: the final record decides when it has one (tokens may include updates that are
 * not part of the answer); the streamed tokens are the fallback. Its canvas markup is taken
 * out of the text unless the option keeps it.
 */
export function answerOf(
	record: IDataObject,
	collector: RunCollector | undefined,
	keepCanvasMarkup: boolean,
): Answer {
	const raw = answerOfRecord(record) ?? collector?.text.toString() ?? '';
	const { text, canvases } = withoutCanvases(raw);
	return { text: keepCanvasMarkup ? raw : text, canvases };
}

/** canvases, and the follow-up questions BotDojo suggests, when the answer has them. */
function answerExtras(record: IDataObject, answer: Answer): IDataObject {
	const extras: IDataObject = {};
	if (answer.canvases.length > 0) extras.canvases = answer.canvases as IDataObject[];
	const questions = asObject(record.response).suggestedQuestions ?? record.suggestedQuestions;
	if (Array.isArray(questions) && questions.length > 0) extras.suggestedQuestions = questions;
	return extras;
}

/**
 * The output item of a run. The flow or a proxy may quote the request back in any field (the
 * answer, errorMessage, logs, events): the runner redacts the API key from what leaves the node.
 */
export function outputJson(
	record: FlowRequestRecord,
	options: RunOptions,
	answer: Answer,
	collector: RunCollector | undefined,
): IDataObject {
	return outputFields(record, options, answer, collector);
}

function outputFields(
	record: FlowRequestRecord,
	options: RunOptions,
	answer: Answer,
	collector?: RunCollector,
): IDataObject {
	const toolCalls = resolveToolCalls(
		record,
		collector?.toolCalls ?? [],
		collector?.stepToolCalls.calls ?? [],
	);
	// An array even when empty; the simplified output leaves an empty one out unless an
	// Evaluation node may read it (options.keepEmptySteps, see evaluationReads.ts).
	const intermediateSteps = agentStepsOf(toolCalls) as unknown as IDataObject[];
	if (!options.simplify) {
		const raw: IDataObject = {
			...record,
			toolCalls: toolCalls as unknown as IDataObject[],
			intermediateSteps,
			...answerExtras(record, answer),
		};
		if (collector) raw.steps = collector.steps as IDataObject[];
		if (collector && options.includeLogs) raw.logs = collector.logs as IDataObject[];
		if (collector && options.includeEvents) raw.events = collector.events;
		return raw;
	}
	const simplified: IDataObject = {
		text: answer.text,
		flowSessionId: record.flow_session_id ?? null,
		flowRequestId: record.id ?? null,
		status: record.status ?? null,
		durationMs: record.duration ?? null,
		// Kept on node version 1, saved before durationMs: its workflows read $json.duration.
		...(options.legacyOutput ? { duration: record.duration ?? null } : {}),
		version: record.version ?? null,
		toolCalls: toolCalls as unknown as IDataObject[],
		intermediateSteps,
		...answerExtras(record, answer),
	};
	// Not named `error`: n8n treats an item with `error` as a failed node (Retry On Fail).
	const errorMessage = errorMessageOfRecord(record);
	if (errorMessage !== undefined) simplified.errorMessage = errorMessage;
	if (collector && options.includeLogs) simplified.logs = collector.logs as IDataObject[];
	if (options.legacyOutput) return simplified;
	const shaped = withoutEmptyLists(simplified, options);
	return options.fields ? selectedFields(shaped, options.fields) : shaped;
}

/** A tool's Output › Selected Fields: those fields, as far as the output has them. */
function selectedFields(json: IDataObject, fields: string[]): IDataObject {
	return Object.fromEntries(Object.entries(json).filter(([field]) => fields.includes(field)));
}

/**
 * n8n's table shows an empty list as a red "[empty array]", which reads like an error.
 * intermediateSteps stays where the Tools Used metric may read it (see evaluationReads.ts).
 */
function withoutEmptyLists(json: IDataObject, options: RunOptions): IDataObject {
	for (const [field, value] of Object.entries(json)) {
		if (field === 'intermediateSteps' && options.keepEmptySteps) continue;
		if (Array.isArray(value) && value.length === 0) delete json[field];
	}
	return json;
}
