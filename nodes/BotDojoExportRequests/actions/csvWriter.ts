/**
 * CSV rows of flow requests (RFC 4180: CRLF line ends, fields with a quote, comma or line break
 * quoted, quotes doubled). The columns are the Simplify fields, in Simplify's order.
 */
import type { IDataObject } from 'n8n-workflow';

import { simplifyFlowRequest } from '../../shared/params/simplify';

/** The Simplify fields, in the order Simplify builds them: the same header for every export. */
export const CSV_COLUMNS: readonly string[] = Object.keys(simplifyFlowRequest({}));

/** Excel reads a CSV as UTF-8 only when it starts with this byte order mark. */
export const UTF8_BOM = '\uFEFF';

/**
 * A spreadsheet may run a cell as a formula when it starts with `=`, `+`, `-`, `@`, a tab or a
 * CR (OWASP's CSV injection list; OWASP ASVS 1.2.10 adds NUL), or with white space and then one
 * of `= + - @` (LibreOffice's "Trim spaces" import option strips the spaces first). Such text gets a leading apostrophe,
 * which spreadsheets show as plain text.
 */
const FORMULA_START = /^(?:[\t\r\0]|\s*[=+\-@])/;
const NEEDS_QUOTES = /[",\r\n]/;

function csvField(value: unknown): string {
	if (value === null || value === undefined) return '';
	if (typeof value === 'number' || typeof value === 'boolean') return String(value);
	let text = typeof value === 'string' ? value : JSON.stringify(value);
	if (FORMULA_START.test(text)) text = `'${text}`;
	return NEEDS_QUOTES.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function csvHeader(): string {
	return `${CSV_COLUMNS.map(csvField).join(',')}\r\n`;
}

/** One line per record, each ending in CRLF. */
export function csvRows(records: IDataObject[]): string {
	let rows = '';
	for (const record of records) {
		const row = simplifyFlowRequest(record);
		rows += `${CSV_COLUMNS.map((column) => csvField(row[column])).join(',')}\r\n`;
	}
	return rows;
}
