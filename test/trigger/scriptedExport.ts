/**
 * A BotDojo whose export a test scripts, for what the emulator does not do: pages answered late,
 * an answer that never begins, records written as raw JSON text (nested deeper than
 * JSON.stringify can write). The trigger polls it through n8n's engine.
 */
import type { IDataObject } from 'n8n-workflow';

import { runPoll } from '../helpers/engine';
import type { Answer, ReceivedRequest, ScriptedServer } from '../transport/scriptedServer';

/** The export's pages by the cursor they are asked after ('' for the first): each record as
 *  JSON text, and the cursor after it when more follow. */
export type ScriptedPages = Record<string, { records: string[]; next?: string }>;

/** A finished request of the watched flow, as JSON text; `fields`: more fields, as JSON text. */
export function recordText(id: string | undefined, modifiedMs: number, fields = ''): string {
	const modified = JSON.stringify(new Date(modifiedMs).toISOString());
	const idField = id === undefined ? '' : `"id":${JSON.stringify(id)},`;
	return `{${idField}"flow_id":"flow_watch","status":"complete","modified":${modified}${fields}}`;
}

/** The cursor an export request asked after ('' for none). */
export function cursorOf(request: ReceivedRequest): string {
	const params = (JSON.parse(request.body) as { params: unknown[] }).params;
	return typeof params[1] === 'string' ? params[1] : '';
}

/** Answers each export request with its page of `pages`. */
export function answerPages(pages: ScriptedPages): Answer {
	return (request, res) => {
		const page = pages[cursorOf(request)] ?? { records: [] };
		const more =
			page.next === undefined ? '"hasMore":false' : `"hasMore":true,"nextCursor":"${page.next}"`;
		res.writeHead(200, { 'content-type': 'application/json' });
		res.end(`{"results":[${page.records.join(',')}],${more}}`);
	};
}

/** One poll of a BotDojo Trigger on flow_watch (n8n's engine), against `botdojo`. */
export async function pollScripted(
	botdojo: ScriptedServer,
	staticData: IDataObject,
	pollBudgetMs?: number,
) {
	return await runPoll({
		node: { type: 'botDojoTrigger', parameters: { flowId: 'flow_watch', statuses: 'both' } },
		credentials: botdojo.credentials,
		staticData,
		pollBudgetMs,
	});
}
