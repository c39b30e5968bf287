/**
 * The key under which the trigger remembers a flow request it has handled. Keys are short
 * whatever the ids look like, so that the static data n8n saves after a poll has a fixed bound
 * (see MAX_KEY_LENGTH), and they never make two different requests one:
 * - a string id of up to 64 characters that does not start with `~` is its own key (the form
 *   trigger 1.1 saved, so a saved state reads the same);
 * - any other id keeps its type: `~number:1` is not `1`, and `~string:~x` is not `~number:…`;
 *   a longer one becomes `~h:` and a SHA-256 digest of its typed form;
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

/** Marks a piece of JSON text on hashJson's stack, as against a value still to write. */
class Text {
	constructor(readonly text: string) {}
}

/**
 * Feeds `value`'s JSON text, exactly as JSON.stringify writes a parsed answer, to `hash` piece by
 * piece from a stack of its own: a body nested 20,000 deep overflows JSON.stringify's call stack
 * (and stopped every poll), not this. Its time and memory are linear in the answer, which
 * ANSWER_LIMITS bounds.
 */
function hashJson(hash: Hash, value: unknown): void {
	const stack: unknown[] = [value];
	while (stack.length > 0) {
		const next = stack.pop();
		if (next instanceof Text) {
			hash.update(next.text);
		} else if (Array.isArray(next)) {
			// pushed in reverse, so that they pop in order: [ a , b ]
			stack.push(new Text(']'));
			for (let at = next.length - 1; at >= 0; at--) {
				stack.push(next[at] ?? null);
				if (at > 0) stack.push(new Text(','));
			}
			stack.push(new Text('['));
		} else if (next !== null && typeof next === 'object') {
			const entries = Object.entries(next).filter(([, field]) => field !== undefined);
			stack.push(new Text('}'));
			entries.reverse().forEach(([name, field], at) => {
				stack.push(
					field,
					new Text(`${at === entries.length - 1 ? '' : ','}${JSON.stringify(name)}:`),
				);
			});
			stack.push(new Text('{'));
		} else {
			hash.update(JSON.stringify(next) ?? 'null');
		}
	}
}

export function recordKey(record: IDataObject): string {
	const id = record.id;
	if (id === undefined || id === null || id === '') {
		const hash = createHash('sha256');
		hashJson(
			hash,
			STABLE_FIELDS.map((field) => record[field] ?? null),
		);
		return `${ENCODED}r:${hash.digest('base64url')}`;
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
