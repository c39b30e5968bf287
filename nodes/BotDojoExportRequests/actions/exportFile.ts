/**
 * Export into one file (CSV or JSON Lines): page after page goes straight into n8n's binary
 * data, so the export's size is not bounded by memory (in n8n's filesystem binary mode nothing
 * is held whole). The one output item carries the file and what a later run needs to go on.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { storeFile } from '../../shared/binary/storeFile';
import { OutputItems } from '../../shared/execution/operation';
import { simplifyFlowRequest } from '../../shared/params/simplify';
import { exportPages, type ExportQuery } from '../../shared/transport/api';
import { withoutKey } from '../../shared/transport/redaction';
import { csvHeader, csvRows, UTF8_BOM } from './csvWriter';

export type FileFormat = 'csvFile' | 'jsonLinesFile';

export interface FileSettings {
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

export const FILE_TYPES: Record<FileFormat, { extension: string; mimeType: string }> = {
	csvFile: { extension: 'csv', mimeType: 'text/csv' },
	jsonLinesFile: { extension: 'jsonl', mimeType: 'application/x-ndjson' },
};

/** What the export found, filled in while the file is written. */
interface Summary {
	records: number;
	firstModified: string | null;
	lastModified: string | null;
	cursor: string | null;
	hasMore: boolean;
}

function modifiedOf(record: IDataObject | undefined): string | null {
	return typeof record?.modified === 'string' ? record.modified : null;
}

/** The file's bytes, one chunk per page; a failed page ends it with that page's error. */
async function* fileChunks(
	ctx: IExecuteFunctions,
	query: ExportQuery,
	settings: FileSettings,
	summary: Summary,
	itemIndex: number,
): AsyncGenerator<Buffer> {
	const csv = settings.format === 'csvFile';
	if (csv) yield Buffer.from(`${settings.excelBom ? UTF8_BOM : ''}${csvHeader()}`);
	for await (const page of exportPages(ctx, query, itemIndex)) {
		const { records } = page;
		summary.records += records.length;
		summary.firstModified ??= modifiedOf(records[0]);
		summary.lastModified = modifiedOf(records.at(-1)) ?? summary.lastModified;
		summary.cursor = page.nextCursor ?? page.afterCursor ?? null;
		summary.hasMore = page.hasMore;
		if (records.length === 0) continue;
		let text = '';
		if (csv) text = csvRows(records);
		else {
			for (const record of records)
				text += `${JSON.stringify(settings.simplify ? simplifyFlowRequest(record) : record)}\n`;
		}
		// The file leaves the node: records BotDojo stored may quote the key.
		yield Buffer.from(withoutKey(ctx, text));
	}
}

export async function exportToFile(
	ctx: IExecuteFunctions,
	query: ExportQuery,
	settings: FileSettings,
	itemIndex: number,
): Promise<OutputItems> {
	const summary: Summary = {
		records: 0,
		firstModified: null,
		lastModified: null,
		cursor: null,
		hasMore: false,
	};
	const body = fileChunks(ctx, query, settings, summary, itemIndex);
	// n8n stores the body only when every chunk came: a failed page (or a file beyond n8n's
	// per-file cap) rejects here and nothing is stored, so no item with a half file goes on.
	const binary = await storeFile(ctx, body, {
		fileName: settings.fileName,
		mimeType: FILE_TYPES[settings.format].mimeType,
		itemIndex,
		wayAround:
			'Export less per file: a smaller date range (From Date / To Date) or a Limit, continuing from the cursor in Start Cursor; or choose Output: Items with Include Cursor.',
	});
	const json: IDataObject = { ...summary, fileName: binary.fileName ?? settings.fileName };
	return new OutputItems([{ json, binary: { [settings.binaryProperty]: binary } }]);
}
