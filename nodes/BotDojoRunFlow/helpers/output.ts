/** The output item of a run: simplified (what most workflows need) or the raw record. */
import type { IDataObject } from 'n8n-workflow';

import type { RunOptions } from '../actions/readOptions';
import { toolCallsFromRecord, type RunCollector } from './collector';

function textOfRecord(record: IDataObject): string {
	const response = record.response as IDataObject | undefined;
	if (typeof response?.text_output === 'string') return response.text_output;
	if (typeof response === 'string') return response;
	const content = (record.aiMessage as IDataObject | undefined)?.content;
	return typeof content === 'string' ? content : '';
}

/** The answer's text: the streamed tokens when there were any, else the record's. */
export function answerText(record: IDataObject, collector?: RunCollector): string {
	return collector && collector.text.count > 0 ? collector.text.toString() : textOfRecord(record);
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
	const toolCalls =
		collector && collector.toolCalls.length > 0 ? collector.toolCalls : toolCallsFromRecord(record);
	if (options.output === 'raw') {
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
