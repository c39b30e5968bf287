/**
 * The key under which the trigger remembers a flow request it has handled. Keys are short
 * whatever the ids look like, so that the static data n8n saves after a poll has a fixed bound
 * (see MAX_KEY_LENGTH), and they never make two different requests one:
 * - a string id of up to 64 characters that does not start with `~` is its own key (the form
 *   trigger 1.1 saved, so a saved state reads the same);
 * - any other id keeps its type: `~number:1` is not `1`, and `~string:~x` is not `~number:…`;
 *   a longer one, or one quoting the API key (static data is saved unencrypted), becomes `~h:`
 *   and a SHA-256 digest of its typed form;
 * - a request without an id (missing, null or "") is keyed `~r:` and a SHA-256 digest of the
 *   fields that describe the request and never change once it ended (STABLE_FIELDS), of any
 *   depth or size (hashJson).
 */
import { createHash, type Hash } from 'crypto';
import type { IDataObject } from 'n8n-workflow';

/** Longest key: a raw id, or `~h:` + 43 base64url characters of SHA-256. */
export const MAX_KEY_LENGTH = 64;

/**
 * What identifies a request without an id: its flow, session, top request, times and input.
 * Not `modified`, `tags`, `eval_job_id`, `status` or the answer: BotDojo may change those later.
 */
const STABLE_FIELDS = [
	'flow_id',
	'flow_session_id',
	'top_request_id',
	'created',
	'startTime',
	'endTime',
	'body',
	'userMessage',
] as const;

/**
 * Feeds `value`'s JSON text to `hash` in pieces, walking it with a stack of its own: a body
 * nested 20,000 deep overflows JSON.stringify's call stack (and stopped every poll), not this.
 * For a parsed answer the text is JSON.stringify's, so saved keys stay the same. Its time and
 * memory are linear in the answer, whose size the transport bounds.
 */
function hashJson(hash: Hash, value: unknown) {
	let text = '';
	// The containers being written: an array, or an object and its keys; the next place in it.
	const open: Array<{ container: unknown[] | IDataObject; keys?: string[]; at: number }> = [];
	let next = value;
	for (;;) {
		if (next === null || typeof next !== 'object') {
			text += JSON.stringify(next) ?? 'null';
		} else {
			const keys = Array.isArray(next) ? undefined : Object.keys(next);
			text += keys ? '{' : '[';
			open.push({ container: next as unknown[] | IDataObject, keys, at: 0 });
		}
		let inner = open[open.length - 1];
		while (inner && inner.at === (inner.keys ?? (inner.container as unknown[])).length) {
			text += inner.keys ? '}' : ']';
			open.pop();
			inner = open[open.length - 1];
		}
		if (!inner || text.length >= 65_536) {
			hash.update(text);
			text = '';
		}
		if (!inner) return;
		const key = inner.keys?.[inner.at];
		text += `${inner.at > 0 ? ',' : ''}${key === undefined ? '' : `${JSON.stringify(key)}:`}`;
		next =
			key === undefined
				? (inner.container as unknown[])[inner.at]
				: (inner.container as IDataObject)[key];
		inner.at++;
	}
}

/** `quotesKey`: whether a text holds the API key in any form (redaction's finder). */
export function recordKey(record: IDataObject, quotesKey?: (text: string) => boolean) {
	const id = record.id;
	const hash = createHash('sha256');
	// No id: missing, null or "".
	if ((id ?? '') === '') {
		hashJson(
			hash,
			STABLE_FIELDS.map((field) => record[field] ?? null),
		);
		return `~r:${hash.digest('base64url')}`;
	}
	const typed = `${typeof id}:${typeof id === 'string' ? id : JSON.stringify(id)}`;
	// An id quoting the key is kept as its digest only.
	const kept = !quotesKey?.(typed);
	if (kept && typeof id === 'string' && id.length <= MAX_KEY_LENGTH && !id.startsWith('~'))
		return id;
	if (kept && typed.length < MAX_KEY_LENGTH) return `~${typed}`;
	return `~h:${hash.update(typed).digest('base64url')}`;
}

/** An id as a log line may show it: at most 80 characters. */
export function idForLog(record: IDataObject) {
	const id = record.id;
	if ((id ?? '') === '') return `without an id (${recordKey(record)})`;
	const text = JSON.stringify(id);
	return text.length > 80 ? `${text.slice(0, 77)}…` : text;
}
