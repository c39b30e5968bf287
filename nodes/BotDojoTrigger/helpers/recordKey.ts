/**
 * The key under which the trigger remembers a flow request it has handled. Keys are short
 * whatever the ids look like, so that the static data n8n saves after a poll has a fixed bound
 * (see MAX_KEY_LENGTH), and they never make two different requests one:
 * - a string id of up to 64 characters that does not start with `~` is its own key (the form
 *   trigger 1.1 saved, so a saved state reads the same);
 * - any other id keeps its type: `~number:1` is not `1`, and `~string:~x` is not `~number:…`;
 *   a longer one becomes `~h:` and a SHA-256 digest of its typed form;
 * - a request without an id (missing, null or "") is keyed `~r:` and a SHA-256 digest of the
 *   fields that describe the request and never change once it ended (STABLE_FIELDS).
 */
import { createHash } from 'crypto';
import type { IDataObject } from 'n8n-workflow';

/** Longest key: a raw id, or `~h:` + 43 base64url characters of SHA-256. */
export const MAX_KEY_LENGTH = 64;

/**
 * What identifies a request without an id: its flow, session, top request, times and input.
 * Not `modified`, `tags`, `eval_job_id`, `status` or the answer: BotDojo may change those later.
 */
export const STABLE_FIELDS = [
	'flow_id',
	'flow_session_id',
	'top_request_id',
	'created',
	'startTime',
	'endTime',
	'body',
	'userMessage',
] as const;

const ENCODED = '~';

function digest(text: string): string {
	return createHash('sha256').update(text).digest('base64url');
}

export function recordKey(record: IDataObject): string {
	const id = record.id;
	if (id === undefined || id === null || id === '') {
		const fields = STABLE_FIELDS.map((field) => record[field] ?? null);
		return `${ENCODED}r:${digest(JSON.stringify(fields))}`;
	}
	if (typeof id === 'string' && id.length <= MAX_KEY_LENGTH && !id.startsWith(ENCODED)) return id;
	const typed = `${typeof id}:${typeof id === 'string' ? id : JSON.stringify(id)}`;
	return typed.length < MAX_KEY_LENGTH ? `${ENCODED}${typed}` : `${ENCODED}h:${digest(typed)}`;
}

/** An id as a log line may show it: at most 80 characters. */
export function idForLog(record: IDataObject): string {
	const id = record.id;
	if (id === undefined || id === null || id === '') return `without an id (${recordKey(record)})`;
	const text = JSON.stringify(id);
	return text.length > 80 ? `${text.slice(0, 77)}…` : text;
}
