/** The output item of a run: simplified (what most workflows need) or the raw record. */
import type { IDataObject } from 'n8n-workflow';

import { answerOfRecord, errorMessageOfRecord } from '../../shared/params/simplify';
import type { FlowRequestRecord } from '../../shared/transport/api';
import type { RunOptions } from './runOptions';
import type { RunCollector } from './collector';
import { agentStepsOf, resolveToolCalls } from './toolCalls';

/**
 * The answer's text: the final record decides when it has one (tokens may include updates
 * that are not part of the answer); the streamed tokens are the fallback.
 */
export function answerText(record: IDataObject, collector?: RunCollector): string {
	return answerOfRecord(record) ?? collector?.text.toString() ?? '';
}

export function outputJson(
	record: FlowRequestRecord,
	options: RunOptions,
	text: string,
	collector?: RunCollector,
): IDataObject {
	const toolCalls = resolveToolCalls(
		record,
		collector?.toolCalls ?? [],
		collector?.stepToolCalls.calls ?? [],
	);
	// Always an array, even empty: the Evaluation node's "Tools Used" metric fails on a missing
	// one ("Intermediate steps missing") where a flow that used no tool should score 0.
	const intermediateSteps = agentStepsOf(toolCalls) as unknown as IDataObject[];
	if (!options.simplify) {
		const raw: IDataObject = {
			...record,
			toolCalls: toolCalls as unknown as IDataObject[],
			intermediateSteps,
		};
		if (collector) raw.steps = collector.steps as IDataObject[];
		if (collector && options.includeLogs) raw.logs = collector.logs as IDataObject[];
		if (collector && options.includeEvents) raw.events = collector.events;
		return raw;
	}
	const simplified: IDataObject = {
		text,
		flowSessionId: record.flow_session_id ?? null,
		flowRequestId: record.id ?? null,
		status: record.status ?? null,
		durationMs: record.duration ?? null,
		// Kept on node version 1, saved before durationMs: its workflows read $json.duration.
		...(options.legacyOutput ? { duration: record.duration ?? null } : {}),
		version: record.version ?? null,
		toolCalls: toolCalls as unknown as IDataObject[],
		intermediateSteps,
	};
	// Not named `error`: n8n treats an item with `error` as a failed node (Retry On Fail).
	const errorMessage = errorMessageOfRecord(record);
	if (errorMessage !== undefined) simplified.errorMessage = errorMessage;
	if (collector && options.includeLogs) simplified.logs = collector.logs as IDataObject[];
	return options.legacyOutput ? simplified : withoutEmptyLists(simplified);
}

/**
 * n8n's table shows an empty list as a red "[empty array]", which reads like an error.
 * intermediateSteps stays: the Tools Used metric needs it even empty (see outputJson).
 */
function withoutEmptyLists(json: IDataObject): IDataObject {
	for (const [field, value] of Object.entries(json)) {
		if (field === 'intermediateSteps') continue;
		if (Array.isArray(value) && value.length === 0) delete json[field];
	}
	return json;
}
