/** The export pager: the cursors of BotDojo's flow request export (api.ts) followed, for the
 *  Export Requests node and the Trigger. */
import { NodeOperationError, type IDataObject } from 'n8n-workflow';

import { exportRequestsPage } from './api';
import type { BotDojoContext } from './project';

/** BotDojo's largest export page. */
export const MAX_PAGE_SIZE = 1000;

/** A cursor is opaque base64 (the spec); BotDojo's are short. A longer text is not one. */
const MAX_CURSOR_CHARS = 4096;

/** Why `cursor` cannot be one of BotDojo's export cursors, or undefined when it can. */
export function cursorProblem(cursor: string): string | undefined {
	if (cursor.length > MAX_CURSOR_CHARS) {
		return `is ${cursor.length} characters long; cursors have at most ${MAX_CURSOR_CHARS}`;
	}
	if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(cursor)) {
		return `"${cursor.slice(0, 60)}" is not a cursor (cursors are base64 text: letters, digits, + / - _ and = at the end)`;
	}
	return undefined;
}

export interface ExportQuery {
	flowId: string;
	/** Records per request, 1 to MAX_PAGE_SIZE. */
	pageSize: number;
	/** Cursor to start after (from an earlier export); the first page otherwise. */
	startCursor?: string;
	/** ISO 8601 UTC; records with `modified` >= fromDate. */
	fromDate?: string;
	/** ISO 8601 UTC; records with `modified` <= toDate. */
	toDate?: string;
	/** Most records in all; every record when undefined. */
	limit?: number;
	/** How to go on from a known point, in the node's words, for when the export stalls. */
	resumeHint?: string;
}

export interface ExportPage {
	records: IDataObject[];
	/** The cursor this page was asked for with (undefined for the very first page). */
	afterCursor?: string;
	/** BotDojo's cursor after the page's last record, when it gave one. */
	nextCursor?: string;
	/** BotDojo holds records after this page (whether or not the limit lets them be read). */
	hasMore: boolean;
}

/**
 * The export's pages, in order. With a limit, each request asks for no more than the records
 * still wanted, so a page's `nextCursor` points just after the last record returned. Paging that
 * does not advance (an empty page or no cursor with `hasMore`, a cursor sent before, records not
 * after the previous page's last) stops with an error instead of looping.
 */
export async function* exportPages(
	ctx: BotDojoContext,
	query: ExportQuery,
	itemIndex = 0,
): AsyncGenerator<ExportPage, void, undefined> {
	const { flowId, fromDate, toDate } = query;
	const cursorsSent = new Set<string>();
	let afterCursor = query.startCursor || undefined;
	let remaining = query.limit ?? Number.POSITIVE_INFINITY;
	let lastPlace: Place | undefined;
	for (let page = 1; remaining > 0; page++) {
		if (afterCursor !== undefined) cursorsSent.add(afterCursor);
		const limit = Math.min(query.pageSize, remaining);
		const answer = await exportRequestsPage(
			ctx,
			{ flowId, afterCursor, limit, fromDate, toDate },
			itemIndex,
		);
		const { results, nextCursor } = answer;
		// A page larger than asked for is cut, so the limit holds whatever BotDojo sends; its
		// cursor then points past records not returned, so it is not handed on.
		const cut = results.length > remaining;
		const records = cut ? results.slice(0, remaining) : results;
		remaining -= records.length;
		const goesOn = answer.hasMore && remaining > 0;
		const firstPlace = placeOf(results[0]);
		let stuck: string | undefined;
		if (goesOn && results.length === 0)
			stuck = 'it said more records follow but sent an empty page';
		else if (goesOn && nextCursor === undefined)
			stuck = 'it said more records follow but sent no cursor';
		else if (goesOn && cursorsSent.has(nextCursor!))
			stuck = 'it sent a cursor it had already sent, so the next page would repeat an earlier one';
		else if (lastPlace && firstPlace && !isAfter(firstPlace, lastPlace))
			stuck = `its records are not after the previous page's last one (modified ${lastPlace.modified}, id "${lastPlace.id}"), so the pages are not advancing`;
		if (stuck) {
			throw new NodeOperationError(
				ctx.getNode(),
				`BotDojo's export of flow "${flowId}" stopped making progress on page ${page}: ${stuck}`,
				{
					itemIndex,
					description: `The export was stopped so that it cannot loop forever or return records twice. BotDojo's paging went wrong, not the node's settings; try again later.${query.resumeHint ? ` ${query.resumeHint}` : ''}`,
				},
			);
		}
		lastPlace = placeOf(results[results.length - 1]) ?? lastPlace;
		yield {
			records,
			afterCursor,
			nextCursor: cut ? undefined : nextCursor,
			hasMore: answer.hasMore || cut,
		};
		if (!goesOn) return;
		afterCursor = nextCursor;
	}
}

/** A record's place in the export's order: `modified`, then id (the spec pages on `modified`). */
interface Place {
	modified: string;
	at: number;
	id: string;
}

function placeOf(record: IDataObject | undefined): Place | undefined {
	const { modified, id } = record ?? {};
	if (typeof modified !== 'string' || typeof id !== 'string') return undefined;
	const at = Date.parse(modified);
	return Number.isNaN(at) ? undefined : { modified, at, id };
}

/** Later, or as late with another id: how ids order at the same time is BotDojo's own. */
function isAfter(next: Place, last: Place): boolean {
	return next.at > last.at || (next.at === last.at && next.id !== last.id);
}
