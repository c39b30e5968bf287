import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { storeFile } from '../../shared/binary/storeFile';
import { defineOperation, OutputItems } from '../../shared/execution';
import { readDateValue, toUtcIso } from '../../shared/params/dates';
import { getTemporarySignedUrl, loadDocumentByLogicalPath } from '../../shared/transport/api';
import { downloadSignedUrl } from '../../shared/transport/download';
import {
	invalidInput,
	outputFileProperty,
	parseJsonObject,
	placeOf,
	readOutputFileField,
	requireOption,
	type InputPlace,
} from '../../shared/validation';
import { logicalPathProperty, readLookupPath } from './logicalPath';

/**
 * Expires, when the signed link stops working: a number of minutes from now, or a date. Either
 * way it must lie in the future; BotDojo gets it as ISO 8601 UTC with milliseconds.
 */
const show = (expiresMode: string) => ({ show: { expiresMode: [expiresMode] } });

const EXPIRES_IN: INodeProperties = {
	displayName: 'Expires In (Minutes)',
	name: 'expiresInMinutes',
	type: 'number',
	typeOptions: { minValue: 1, numberPrecision: 0 },
	default: 60,
	displayOptions: show('minutes'),
	description: 'Minutes from now until the link stops working, at least 1',
};

const EXPIRES_AT: INodeProperties = {
	displayName: 'Expires At',
	name: 'expiresAt',
	type: 'dateTime',
	default: '',
	displayOptions: show('date'),
	description:
		"When the link stops working; must be in the future. A date without a time zone is read in the workflow's time zone.",
};

const EXPIRES_MODE: INodeProperties = {
	displayName: 'Expires',
	name: 'expiresMode',
	type: 'options',
	noDataExpression: true,
	options: [
		{ name: 'In Minutes', value: 'minutes', description: 'A number of minutes from now' },
		{ name: 'At a Date', value: 'date', description: 'A date and time' },
	],
	default: 'minutes',
	description: 'When the link stops working',
};

/** The latest time a JavaScript date can hold. */
const LATEST_DATE_MS = 8.64e15;

/** The expiry of the current item's link, in epoch milliseconds. */
function readExpiry(ctx: IExecuteFunctions, place: InputPlace, now: number) {
	if (requireOption(ctx, EXPIRES_MODE, place.itemIndex) === 'minutes') {
		const value = ctx.getNodeParameter(EXPIRES_IN.name, place.itemIndex, 60);
		const minutes = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
		const refuse = (why: string) =>
			invalidInput(
				place,
				EXPIRES_IN.displayName,
				`is ${JSON.stringify(value)}, ${why}`,
				'Enter a number of minutes, 1 or more, e.g. 60.',
			);
		// The field's minimum (1) is what is accepted, from an expression too.
		if (typeof minutes !== 'number' || !Number.isFinite(minutes) || minutes < 1) {
			throw refuse(
				typeof minutes === 'number' && minutes > 0
					? 'less than the shortest link, 1 minute'
					: 'so the link would already have expired',
			);
		}
		// A date holds at most 8.64e15 ms: later, the link's expiry could not even be written.
		if (now + minutes * 60_000 > LATEST_DATE_MS) throw refuse('later than any date can be');
		return now + Math.round(minutes * 60_000);
	}
	const value = ctx.getNodeParameter(EXPIRES_AT.name, place.itemIndex, '');
	const reading = readDateValue(value, ctx.getTimezone());
	const at = reading && 'ms' in reading ? reading.ms : undefined;
	const refuse = (problem: string) =>
		invalidInput(
			place,
			EXPIRES_AT.displayName,
			problem,
			'Give a date and time after now, e.g. 2030-01-31T18:00:00Z or {{ $now.plus(1, "day") }}.',
		);
	if (at === undefined) throw refuse(`is not a date (${JSON.stringify(value)})`);
	if (at <= now) {
		throw refuse(
			`is in the past (${new Date(at).toISOString()}, now is ${new Date(now).toISOString()})`,
		);
	}
	return at;
}

const OUTPUT_FILE = outputFileProperty('outputBinaryPropertyName', {
	show: { downloadFile: [true] },
});

const DOCUMENT_RECORD: INodeProperties = {
	displayName: 'Document Record',
	name: 'documentRecord',
	type: 'json',
	default: '={{ $json }}',
	required: true,
	displayOptions: { show: { documentSource: ['record'] } },
	description:
		'The document record (with its ID), e.g. the item output by Upload or Get by Logical Path. The link is for the version in the record.',
};

const DOCUMENT_SOURCE: INodeProperties = {
	displayName: 'Document',
	name: 'documentSource',
	type: 'options',
	noDataExpression: true,
	options: [
		{
			name: 'By Logical Path',
			value: 'logicalPath',
			description: 'Look the document up by its path first (one more request)',
		},
		{
			name: 'From a Document Record',
			value: 'record',
			description: 'Use a record returned by Upload or Get by Logical Path',
		},
	],
	default: 'logicalPath',
};

const properties: INodeProperties[] = [
	DOCUMENT_SOURCE,
	logicalPathProperty(
		'The logical path the document was uploaded under; the link is for its latest version',
		{ show: { documentSource: ['logicalPath'] } },
	),
	DOCUMENT_RECORD,
	EXPIRES_MODE,
	EXPIRES_IN,
	EXPIRES_AT,
	{
		displayName: 'Download File',
		name: 'downloadFile',
		type: 'boolean',
		default: false,
		description: 'Whether to also download the file through the link into a binary field',
	},
	OUTPUT_FILE,
];

function readRecord(place: InputPlace, value: unknown) {
	const valid =
		'Pass the record returned by Upload or Get by Logical Path, e.g. {{ $json }}, or choose Document: By Logical Path.';
	const record = parseJsonObject(place, DOCUMENT_RECORD.displayName, value, valid);
	if (typeof record.id !== 'string' || record.id.trim() === '') {
		throw invalidInput(place, DOCUMENT_RECORD.displayName, 'has no "id"', valid);
	}
	return record;
}

export const operation = defineOperation({
	option: {
		name: 'Get Download Link',
		value: 'getDownloadLink',
		action: 'Get download link',
		description:
			'Get a signed link that downloads the document without an API key until it expires, and optionally the file itself',
	},
	description: properties,
	prepare(itemIndex) {
		const place = placeOf(this, itemIndex);
		// The document record given, or the logical path to look it up by.
		const document =
			requireOption(this, DOCUMENT_SOURCE, itemIndex) === 'record'
				? readRecord(place, this.getNodeParameter(DOCUMENT_RECORD.name, itemIndex, ''))
				: readLookupPath(this, itemIndex);
		const expiresAt = readExpiry(this, place, Date.now());
		// Output binary field, when the file is to be downloaded too.
		const downloadInto = this.getNodeParameter('downloadFile', itemIndex, false)
			? readOutputFileField(this, OUTPUT_FILE, itemIndex)
			: undefined;
		return { document, expiresAt, downloadInto };
	},
	async execute({ document: recordOrPath, expiresAt, downloadInto }, itemIndex) {
		const document =
			typeof recordOrPath === 'string'
				? await loadDocumentByLogicalPath(this, recordOrPath, itemIndex)
				: recordOrPath;
		const expires = toUtcIso(expiresAt);
		const url = await getTemporarySignedUrl(this, document, expires, itemIndex);
		const item: INodeExecutionData = { json: { url, expires, document } };
		if (downloadInto) {
			// The record's size bounds the download (a hostile storage could send without end).
			const file = await downloadSignedUrl(this, url, expiresAt, {
				itemIndex,
				sizeBytes: document.sizeBytes,
			});
			const { logicalPath } = document;
			const fileName =
				String(document.fileName ?? '') ||
				(typeof logicalPath === 'string' && logicalPath.split('/').pop()) ||
				'document';
			// Always pass a MIME type: without one n8n sniffs the bytes with a dynamic import.
			const mimeType =
				file.contentType || String(document.contentType ?? '') || 'application/octet-stream';
			const binary = await storeFile(this, file.data, {
				fileName,
				mimeType,
				itemIndex,
				wayAround: 'Turn off Download File and hand the link (url) to whoever needs the file.',
			});
			item.binary = { [downloadInto]: binary };
		}
		return new OutputItems([item]);
	},
});
