/** The output item of a run: simplified (what most workflows need) or the raw record. */
import type { IDataObject } from 'n8n-workflow';

import type { RunOptions } from '../actions/readOptions';
import type { RunCollector } from './collector';
import { resolveToolCalls } from './toolCalls';

/** The record's answer as BotDojo's own clients read it: text_output, then aiMessage.content. */
function textOfRecord(record: IDataObject): string | undefined {
	const response = record.response as IDataObject | undefined;
	if (typeof response?.text_output === 'string' && response.text_output) {
		return response.text_output;
	}
	if (typeof response === 'string' && response) return response;
	const content = (record.aiMessage as IDataObject | undefined)?.content;
	return typeof content === 'string' && content ? content : undefined;
}

/**
 * The answer's text: the final record decides when it has one (tokens may include updates
 * that are not part of the answer); the streamed tokens are the fallback.
 */
export function answerText(record: IDataObject, collector?: RunCollector): string {
	return textOfRecord(record) ?? collector?.text.toString() ?? '';
}

function errorMessageOf(record: IDataObject): string | undefined {
	if (record.status !== 'error') return undefined;
	const response = record.response as IDataObject | undefined;
	const said = response?.error ?? response?.message ?? (record as IDataObject).error;
	if (typeof said === 'string') return said;
	return said === undefined ? 'The flow reported an error' : JSON.stringify(said);
}

export function outputJson(
	record: IDataObject,
	options: RunOptions,
	text: string,
	collector?: RunCollector,
): IDataObject {
	const toolCalls = resolveToolCalls(
		record,
		collector?.toolCalls ?? [],
		collector?.stepToolCalls.calls ?? [],
	);
	if (!options.simplify) {
		const raw: IDataObject = {
			...record,
			toolCalls: toolCalls as unknown as IDataObject[],
		};
		if (collector) raw.steps = collector.steps as IDataObject[];
		if (collector && options.includeLogs) raw.logs = collector.logs as IDataObject[];
		if (collector && options.includeEvents) raw.events = collector.events;
		return raw;
	}
	const simplified: IDataObject = {
		text,
		flowSessionId: (record.flow_session_id as string) ?? null,
		flowRequestId: (record.id as string) ?? null,
		status: (record.status as string) ?? null,
		durationMs: (record.duration as number) ?? null,
		// Kept for workflows saved before durationMs: they read $json.duration.
		duration: (record.duration as number) ?? null,
		version: (record.version as string) ?? null,
		toolCalls: toolCalls as unknown as IDataObject[],
	};
	// Not named `error`: n8n treats an item with `error` as a failed node (Retry On Fail).
	const errorMessage = errorMessageOf(record);
	if (errorMessage !== undefined) simplified.errorMessage = errorMessage;
	if (collector && options.includeLogs) simplified.logs = collector.logs as IDataObject[];
	return simplified;
}
