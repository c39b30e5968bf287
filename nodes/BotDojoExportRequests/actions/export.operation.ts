import {
	updateDisplayOptions,
	type IDataObject,
	type IExecuteFunctions,
	type INodeProperties,
	type INodePropertyOptions,
} from 'n8n-workflow';

import { readDateParameter } from '../../shared/params/dates';
import type { Operation } from '../../shared/execution/operation';
import {
	cursorProblem,
	exportPages,
	MAX_PAGE_SIZE,
	type ExportQuery,
} from '../../shared/transport';
import { readFlowId } from '../../shared/params/flowId';
import {
	simplifyFlowRequest,
	simplifyProperties,
	SIMPLIFY_REQUESTS_DESCRIPTION,
} from '../../shared/params/simplify';
import { invalidInput } from '../../shared/validation';
import { placeOf, readWholeNumber } from './itemInput';

export const option: INodePropertyOptions = {
	name: 'Export',
	value: 'export',
	action: 'Export flow requests',
	description:
		'Read the finished requests (complete or error) of a flow, oldest first, one item per request',
};

const properties: INodeProperties[] = [
	{
		displayName: 'Return All',
		name: 'returnAll',
		type: 'boolean',
		default: false,
		description: 'Whether to return all results or only up to a given limit',
	},
	{
		displayName: 'Limit',
		name: 'limit',
		type: 'number',
		default: 50,
		typeOptions: { minValue: 1 },
		displayOptions: { show: { returnAll: [false] } },
		description: 'Max number of results to return',
	},
	...simplifyProperties(SIMPLIFY_REQUESTS_DESCRIPTION),
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
			{
				displayName: 'From Date',
				name: 'fromDate',
				type: 'dateTime',
				default: '',
				description:
					'Only requests last modified at or after this moment. Accepts a date in any time zone or a DateTime from an expression; without a zone, the workflow time zone applies.',
			},
			{
				displayName: 'Include Cursor',
				name: 'includeCursor',
				type: 'boolean',
				default: false,
				description:
					'Whether to add _cursor and _hasMore to the last output item. Put _cursor in Start Cursor in a later run to continue after that item. When the export reached the end, BotDojo gives no cursor after the last request: _cursor then points to the start of the last page, so a later run repeats up to one page first (it is empty when everything fitted in one page).',
			},
			{
				displayName: 'Page Size',
				name: 'pageSize',
				type: 'number',
				default: MAX_PAGE_SIZE,
				typeOptions: { minValue: 1, maxValue: MAX_PAGE_SIZE },
				description:
					'Requests fetched per call to BotDojo (1 to 1000). Pages are fetched one after another until done; larger pages mean fewer calls.',
			},
			{
				displayName: 'Start Cursor',
				name: 'startCursor',
				type: 'string',
				default: '',
				description:
					'Continue an earlier export after the request this cursor points to (the _cursor of an earlier run with Include Cursor on)',
			},
			{
				displayName: 'To Date',
				name: 'toDate',
				type: 'dateTime',
				default: '',
				description:
					'Only requests last modified at or before this moment. Accepts a date in any time zone or a DateTime from an expression; without a zone, the workflow time zone applies.',
			},
		],
	},
];

/** Every parameter of one item, checked before any request is sent. */
function readQuery(ctx: IExecuteFunctions, itemIndex: number): ExportQuery {
	const place = placeOf(ctx, itemIndex);
	const flowId = readFlowId(ctx, itemIndex);
	const returnAll = ctx.getNodeParameter('returnAll', itemIndex, false) as boolean;
	const limit = returnAll
		? undefined
		: readWholeNumber(
				place,
				'Limit',
				ctx.getNodeParameter('limit', itemIndex, 50),
				1,
				Number.MAX_SAFE_INTEGER,
			);
	const options = ctx.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const pageSize =
		options.pageSize === undefined
			? MAX_PAGE_SIZE
			: readWholeNumber(place, 'Page Size', options.pageSize, 1, MAX_PAGE_SIZE);
	const timeZone = ctx.getTimezone();
	const fromDate = readDateParameter(place, 'From Date', options.fromDate, timeZone);
	const toDate = readDateParameter(place, 'To Date', options.toDate, timeZone);
	if (fromDate && toDate && fromDate > toDate) {
		throw invalidInput(
			place,
			'From Date',
			`${fromDate} is after To Date ${toDate}`,
			'Choose a From Date at or before the To Date (both are inclusive).',
		);
	}
	const startCursor = typeof options.startCursor === 'string' ? options.startCursor.trim() : '';
	const cursorWrong = startCursor ? cursorProblem(startCursor) : undefined;
	if (cursorWrong) {
		const valid = 'Paste the _cursor of an earlier export (Include Cursor on), or leave it empty.';
		throw invalidInput(place, 'Start Cursor', cursorWrong, valid);
	}
	return { flowId, pageSize, limit, fromDate, toDate, startCursor: startCursor || undefined };
}

interface Prepared {
	query: ExportQuery;
	includeCursor: boolean;
	simplify: boolean;
}

export const operation: Operation<Prepared> = {
	description: updateDisplayOptions({ show: { operation: ['export'] } }, properties),
	prepare(this: IExecuteFunctions, itemIndex: number): Prepared {
		const includeCursor = this.getNodeParameter('options.includeCursor', itemIndex, false);
		return {
			query: readQuery(this, itemIndex),
			includeCursor: includeCursor === true,
			simplify: this.getNodeParameter('simplify', itemIndex, false) === true,
		};
	},
	async execute(this: IExecuteFunctions, prepared: Prepared, itemIndex: number) {
		const { query, includeCursor, simplify } = prepared;
		const output: IDataObject[] = [];
		let resumeCursor: string | undefined;
		let hasMore = false;
		for await (const page of exportPages.call(this, query, itemIndex)) {
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
};
