/**
 * Export into one file (CSV or JSON Lines): page after page goes straight into n8n's binary
 * data, so the export's size is not bounded by memory (in n8n's filesystem binary mode nothing
 * is held whole). The one output item carries the file and what a later run needs to go on.
 *
 * CSV: RFC 4180 (CRLF line ends, fields with a quote, comma or line break quoted, quotes
 * doubled); the columns are the Simplify fields, in Simplify's order.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { storeFile } from '../../shared/binary/storeFile';
import { OutputItems } from '../../shared/execution';
import { simplifyFlowRequest } from '../../shared/params/simplify';
import { exportPages, type ExportQuery } from '../../shared/transport/api';
import { withoutKey } from '../../shared/transport/redaction';

/** The Simplify fields, in the order Simplify builds them: the same header for every export. */
export const CSV_COLUMNS = Object.keys(simplifyFlowRequest({}));

/** Excel reads a CSV as UTF-8 only when it starts with this byte order mark. */
const UTF8_BOM = '\uFEFF';

/**
 * A spreadsheet may run a cell as a formula when it starts with `=`, `+`, `-`, `@`, a tab or a
 * CR (OWASP's CSV injection list; OWASP ASVS 1.2.10 adds NUL), or with white space and then one
 * of `= + - @` (LibreOffice's "Trim spaces" import option strips the spaces first). Such text
 * gets a leading apostrophe, which spreadsheets show as plain text.
 */
const FORMULA_START = /^(?:[\t\r\0]|\s*[=+\-@])/;
const NEEDS_QUOTES = /[",\r\n]/;

function csvField(value: unknown) {
	if (value === null || value === undefined) return '';
	if (typeof value === 'number' || typeof value === 'boolean') return String(value);
	let text = typeof value === 'string' ? value : JSON.stringify(value);
	if (FORMULA_START.test(text)) text = `'${text}`;
	return NEEDS_QUOTES.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** One line per record, each ending in CRLF. */
export function csvRows(records: IDataObject[]) {
	let rows = '';
	for (const record of records) {
		const row = simplifyFlowRequest(record);
		rows += `${CSV_COLUMNS.map((column) => csvField(row[column])).join(',')}\r\n`;
	}
	return rows;
}

export type FileFormat = keyof typeof FILE_TYPES;

interface FileSettings {
	format: FileFormat;
	/** File name, extension included. */
	fileName: string;
	/** Field of the output item's binary data that holds the file. */
	binaryProperty: string;
	/** CSV: start with a UTF-8 byte order mark (for Excel). */
	excelBom: boolean;
	/** JSON Lines: the Simplify fields instead of whole records. */
	simplify: boolean;
}

export const FILE_TYPES = {
	csvFile: { extension: 'csv', mimeType: 'text/csv' },
	jsonLinesFile: { extension: 'jsonl', mimeType: 'application/x-ndjson' },
};

function modifiedOf(record: IDataObject | undefined) {
	return typeof record?.modified === 'string' ? record.modified : null;
}

export async function exportToFile(
	ctx: IExecuteFunctions,
	query: ExportQuery,
	settings: FileSettings,
	itemIndex: number,
) {
	// What the export found, filled in while the file is written.
	const summary = {
		records: 0,
		firstModified: null as string | null,
		lastModified: null as string | null,
		cursor: null as string | null,
		hasMore: false,
	};
	const csv = settings.format === 'csvFile';
	/** The file's bytes, one chunk per page; a failed page ends it with that page's error. */
	async function* fileChunks() {
		if (csv) yield Buffer.from(`${settings.excelBom ? UTF8_BOM : ''}${CSV_COLUMNS.join(',')}\r\n`);
		for await (const page of exportPages(ctx, query, itemIndex)) {
			const { records } = page;
			summary.records += records.length;
			summary.firstModified ??= modifiedOf(records[0]);
			summary.lastModified = modifiedOf(records.at(-1)) ?? summary.lastModified;
			summary.cursor = page.nextCursor ?? page.afterCursor ?? null;
			summary.hasMore = page.hasMore;
			if (records.length === 0) continue;
			const text = csv
				? csvRows(records)
				: records
						.map(
							(record) =>
								`${JSON.stringify(settings.simplify ? simplifyFlowRequest(record) : record)}\n`,
						)
						.join('');
			// The file leaves the node: records BotDojo stored may quote the key.
			yield Buffer.from(withoutKey(ctx, text));
		}
	}
	// n8n stores the body only when every chunk came: a failed page (or a file beyond n8n's
	// per-file cap) rejects here and nothing is stored, so no item with a half file goes on.
	const binary = await storeFile(ctx, fileChunks(), {
		fileName: settings.fileName,
		mimeType: FILE_TYPES[settings.format].mimeType,
		itemIndex,
		wayAround:
			'Export less per file: a smaller date range (From Date / To Date) or a Limit, continuing from the cursor in Start Cursor; or choose Output: Items with Include Cursor.',
	});
	const json = { ...summary, fileName: binary.fileName ?? settings.fileName };
	return new OutputItems([{ json, binary: { [settings.binaryProperty]: binary } }]);
}
