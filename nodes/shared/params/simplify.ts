/**
 * Simplify, as in n8n's own nodes: a top-level toggle that keeps the fields a spreadsheet row
 * needs. On by default from node version 1.1; workflows saved at version 1 keep the whole
 * record, since their later nodes read its fields.
 */
import type { IDataObject, INodeProperties } from 'n8n-workflow';

/** The node version from which Simplify is on by default. */
const SIMPLIFY_DEFAULT_ON_FROM = 1.1;

/** A `displayOptions.show` rule: only on node versions before `version` (saved workflows). */
export function beforeVersion(version: number) {
	return { '@version': [{ _cnd: { lt: version } }] };
}

/** One Simplify parameter per version range; n8n shows (and defaults) the one that matches. */
export function simplifyProperties(description: string): INodeProperties[] {
	return [
		{
			displayName: 'Simplify',
			name: 'simplify',
			type: 'boolean',
			default: false,
			description,
			displayOptions: { show: beforeVersion(SIMPLIFY_DEFAULT_ON_FROM) },
		},
		{
			displayName: 'Simplify',
			name: 'simplify',
			type: 'boolean',
			default: true,
			description,
			// Only on node versions from SIMPLIFY_DEFAULT_ON_FROM on.
			displayOptions: { show: { '@version': [{ _cnd: { gte: SIMPLIFY_DEFAULT_ON_FROM } }] } },
		},
	];
}

export const SIMPLIFY_REQUESTS_DESCRIPTION =
	'Whether to return one row per request with flowRequestId, flowId, flowSessionId, status, userMessage, answer, errorMessage, startTime, endTime, durationMs, modified and version instead of the whole record (about 25 fields)';

function text(value: unknown) {
	return typeof value === 'string' ? value : null;
}

/** The answer as BotDojo's own clients read it: response.text_output, then aiMessage.content. */
export function answerOfRecord(record: IDataObject) {
	const response = record.response as IDataObject | undefined;
	if (typeof response?.text_output === 'string' && response.text_output) {
		return response.text_output;
	}
	if (typeof response === 'string' && response) return response;
	const content = (record.aiMessage as IDataObject | undefined)?.content;
	return typeof content === 'string' && content ? content : undefined;
}

/** What the flow said went wrong, for a record with status "error"; else undefined. */
export function errorMessageOfRecord(record: IDataObject) {
	if (record.status !== 'error') return undefined;
	const response = record.response as IDataObject | undefined;
	const said = response?.error ?? response?.message ?? record.error;
	if (typeof said === 'string') return said;
	if (said === undefined) return 'The flow reported an error';
	try {
		return JSON.stringify(said);
	} catch {
		// Nested deeper than JSON.stringify recurses (a broken or hostile answer).
		return 'The flow reported an error nested too deeply to show';
	}
}

/**
 * A flow request record as one spreadsheet row: the same columns for every record (null when
 * BotDojo left a field out), camelCase names, units in the name.
 */
export function simplifyFlowRequest(record: IDataObject): IDataObject {
	return {
		flowRequestId: text(record.id),
		flowId: text(record.flow_id),
		flowSessionId: text(record.flow_session_id),
		status: text(record.status),
		userMessage: text((record.userMessage as IDataObject | undefined)?.content),
		answer: answerOfRecord(record) ?? null,
		// Not named `error`: n8n treats an item with `error` as a failed node (Retry On Fail).
		errorMessage: errorMessageOfRecord(record) ?? null,
		startTime: text(record.startTime),
		endTime: text(record.endTime),
		durationMs: typeof record.duration === 'number' ? record.duration : null,
		modified: text(record.modified),
		version: text(record.version),
	};
}

export const SIMPLIFY_SESSION_DESCRIPTION =
	'Whether to return only flowSessionId (what Run Flow › Session › Continue takes), flowId and created instead of the whole session record';

/** A flow session record (from Create Session) as the fields a workflow goes on with. */
export function simplifySession(record: IDataObject) {
	return {
		flowSessionId: text(record.id),
		flowId: text(record.flow_id),
		created: text(record.created),
	};
}
