import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { defineOperation } from '../../shared/execution';
import { readDateParameter } from '../../shared/params/dates';
import { readFlowId } from '../../shared/params/idLocator';
import {
	simplifyFlowRequest,
	simplifyProperties,
	SIMPLIFY_REQUESTS_DESCRIPTION,
} from '../../shared/params/simplify';
import { exportPages } from '../../shared/transport/api';
import {
	invalidInput,
	outputFileProperty,
	placeOf,
	readOutputFileField,
	readWholeNumber,
	requireOption,
} from '../../shared/validation';
import { exportToFile, FILE_TYPES, type FileFormat } from './exportFile';

const FILE_MODES = ['csvFile', 'jsonLinesFile'];

const OUTPUT_FILE = outputFileProperty('binaryPropertyName', { show: { output: FILE_MODES } });

const LIMIT: INodeProperties = {
	displayName: 'Limit',
	name: 'limit',
	type: 'number',
	default: 50,
	typeOptions: { minValue: 1 },
	displayOptions: { show: { returnAll: [false] } },
	description: 'Max number of results to return',
};

const dateFilter = (displayName: string, name: string, side: string): INodeProperties => ({
	displayName,
	name,
	type: 'dateTime',
	default: '',
	description: `Only requests last modified at or ${side} this moment. Accepts a date in any time zone or a DateTime from an expression; without a zone, the workflow time zone applies.`,
});

const FROM_DATE = dateFilter('From Date', 'fromDate', 'after');
const TO_DATE = dateFilter('To Date', 'toDate', 'before');

/** BotDojo's largest export page: the default, all the transport asks for without one. */
const LARGEST_PAGE = 1000;

const PAGE_SIZE: INodeProperties = {
	displayName: 'Page Size',
	name: 'pageSize',
	type: 'number',
	default: LARGEST_PAGE,
	typeOptions: { minValue: 1, maxValue: LARGEST_PAGE },
	description:
		'Requests fetched per call to BotDojo (1 to 1000). Pages are fetched one after another until done; larger pages mean fewer calls.',
};

const START_CURSOR: INodeProperties = {
	displayName: 'Start Cursor',
	name: 'startCursor',
	type: 'string',
	default: '',
	description:
		'Continue an earlier export after the request this cursor points to (the _cursor of an earlier run with Include Cursor on)',
};

const OUTPUT: INodeProperties = {
	displayName: 'Output',
	name: 'output',
	type: 'options',
	noDataExpression: true,
	options: [
		{
			name: 'Items',
			value: 'items',
			description: 'One n8n item per request. Every item stays in memory until the run ends.',
		},
		{
			name: 'CSV File',
			value: 'csvFile',
			description:
				'One item with a CSV file (the Simplify columns), written page after page: exports of any size',
		},
		{
			name: 'JSON Lines File',
			value: 'jsonLinesFile',
			description:
				'One item with a file of one JSON record per line, written page after page: exports of any size',
		},
	],
	default: 'items',
};

const properties: INodeProperties[] = [
	OUTPUT,
	{
		displayName: 'Return All',
		name: 'returnAll',
		type: 'boolean',
		default: false,
		description: 'Whether to return all results or only up to a given limit',
	},
	{
		displayName:
			'Every item of an export stays in memory until the run ends: at about 200,000 requests per 1 GB of n8n memory, n8n stops. For large exports choose Output › CSV File or JSON Lines File, or export in a loop with a Limit and Start Cursor (Include Cursor on).',
		name: 'itemsMemoryNotice',
		type: 'notice',
		default: '',
		displayOptions: { show: { output: ['items'], returnAll: [true] } },
	},
	LIMIT,
	{
		displayName: 'File Name',
		name: 'fileName',
		type: 'string',
		default: '',
		placeholder: 'e.g. flow-requests-2024-03-01.csv',
		description:
			'Name of the file, with its extension. Empty: flow-requests-(Flow ID).csv, or .jsonl.',
		displayOptions: { show: { output: FILE_MODES } },
	},
	OUTPUT_FILE,
	// A CSV file always has the Simplify columns.
	...simplifyProperties(SIMPLIFY_REQUESTS_DESCRIPTION).map((property) => ({
		...property,
		displayOptions: { ...property.displayOptions, hide: { output: ['csvFile'] } },
	})),
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
			{
				displayName: 'Add Byte Order Mark (BOM)',
				name: 'excelBom',
				type: 'boolean',
				default: false,
				description:
					'Whether to start the CSV file with a UTF-8 byte order mark, so that Excel reads accented and other non-ASCII letters right',
				displayOptions: { show: { '/output': ['csvFile'] } },
			},
			FROM_DATE,
			{
				displayName: 'Include Cursor',
				name: 'includeCursor',
				type: 'boolean',
				default: false,
				// A file's item always carries the cursor.
				displayOptions: { show: { '/output': ['items'] } },
				description:
					'Whether to add _cursor and _hasMore to the last output item. Put _cursor in Start Cursor in a later run to continue after that item. When the export reached the end, BotDojo gives no cursor after the last request: _cursor then points to the start of the last page, so a later run repeats up to one page first (it is empty when everything fitted in one page).',
			},
			PAGE_SIZE,
			START_CURSOR,
			TO_DATE,
		],
	},
];

/** A cursor is opaque base64 (the spec); BotDojo's are short. A longer text is not one. */
const MAX_CURSOR_CHARS = 4096;

export const operation = defineOperation({
	option: {
		name: 'Export',
		value: 'export',
		action: 'Export flow requests',
		description:
			'Read the finished requests (complete or error) of a flow, oldest first, one item per request',
	},
	description: properties,
	/** Every parameter of one item, checked before any request is sent. */
	prepare(itemIndex) {
		const place = placeOf(this, itemIndex);
		const flowId = readFlowId(this, itemIndex);
		const limit = this.getNodeParameter('returnAll', itemIndex, false)
			? undefined
			: readWholeNumber(
					place,
					LIMIT.displayName,
					this.getNodeParameter(LIMIT.name, itemIndex, 50),
					1,
					Number.MAX_SAFE_INTEGER,
				);
		const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
		const pageSize =
			options.pageSize === undefined
				? undefined
				: readWholeNumber(place, PAGE_SIZE.displayName, options.pageSize, 1, LARGEST_PAGE);
		const date = ({ displayName, name }: INodeProperties) =>
			readDateParameter(place, displayName, options[name], this.getTimezone());
		const fromDate = date(FROM_DATE);
		const toDate = date(TO_DATE);
		if (fromDate && toDate && fromDate > toDate) {
			throw invalidInput(
				place,
				FROM_DATE.displayName,
				`${fromDate} is after To Date ${toDate}`,
				'Choose a From Date at or before the To Date (both are inclusive).',
			);
		}
		const startCursor = typeof options.startCursor === 'string' ? options.startCursor.trim() : '';
		const refuseCursor = (problem: string) =>
			invalidInput(
				place,
				START_CURSOR.displayName,
				problem,
				'Paste the _cursor of an earlier export (Include Cursor on), or leave it empty.',
			);
		if (startCursor.length > MAX_CURSOR_CHARS) {
			throw refuseCursor(
				`is ${startCursor.length} characters long; cursors have at most ${MAX_CURSOR_CHARS}`,
			);
		}
		if (startCursor && !/^[A-Za-z0-9+/_-]+={0,2}$/.test(startCursor)) {
			throw refuseCursor(
				`"${startCursor.slice(0, 60)}" is not a cursor (cursors are base64 text: letters, digits, + / - _ and = at the end)`,
			);
		}
		const simplify = this.getNodeParameter('simplify', itemIndex, false) === true;
		const format = requireOption(this, OUTPUT, itemIndex) as FileFormat | 'items';
		return {
			query: {
				flowId,
				pageSize,
				limit,
				fromDate,
				toDate,
				startCursor: startCursor || undefined,
				resumeHint: 'To continue from a known point, use the Start Cursor option or a From Date.',
			},
			includeCursor: options.includeCursor === true,
			simplify,
			file:
				format === 'items'
					? undefined
					: {
							format,
							fileName:
								String(this.getNodeParameter('fileName', itemIndex, '')).trim() ||
								`flow-requests-${flowId}.${FILE_TYPES[format].extension}`,
							binaryProperty: readOutputFileField(this, OUTPUT_FILE, itemIndex),
							excelBom: options.excelBom === true,
							simplify,
						},
		};
	},
	async execute({ query, includeCursor, simplify, file }, itemIndex) {
		if (file) return await exportToFile(this, query, file, itemIndex);
		const output: IDataObject[] = [];
		let resumeCursor: string | undefined;
		let hasMore = false;
		for await (const page of exportPages(this, query, itemIndex)) {
			// Raw records go out as parsed, without copies: exports can hold hundreds of thousands.
			// The runner makes them items.
			for (const record of page.records)
				output.push(simplify ? simplifyFlowRequest(record) : record);
			resumeCursor = page.nextCursor ?? page.afterCursor;
			hasMore = page.hasMore;
		}
		const last = output.at(-1);
		if (includeCursor && last) {
			last._cursor = resumeCursor ?? null;
			last._hasMore = hasMore;
		}
		return output;
	},
});
