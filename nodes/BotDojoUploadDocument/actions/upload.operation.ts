import {
	BINARY_ENCODING,
	type IBinaryData,
	type IExecuteFunctions,
	type INodeProperties,
} from 'n8n-workflow';

import { defineOperation } from '../../shared/execution';
import {
	fieldsOrJsonProperties,
	readFieldsOrJson,
	type FieldsOrJson,
} from '../../shared/params/fieldsOrJson';
import { uploadDocument } from '../../shared/transport/api';
import {
	invalidInput,
	placeOf,
	requireTextParameter,
	type InputPlace,
} from '../../shared/validation';
import {
	hasControlCharacter,
	logicalPathProperty,
	readUploadPath,
	UPLOAD_PATH_RULES,
} from './logicalPath';

/** Custom attributes stored with the document (`meta`). */
const META: FieldsOrJson = {
	label: 'Metadata',
	names: { mode: 'metaMode', fields: 'metaFields', json: 'metaJson' },
	otherModes: [{ name: 'None', value: 'none', description: 'Send no custom attributes' }],
	defaultMode: 'none',
	description: 'Custom attributes stored with the document',
	fields: {
		entry: 'Attribute',
		modeDescription: 'Enter attributes as names and text values',
		description:
			'Each attribute is stored as text; use JSON for numbers, booleans or nested values',
		namePlaceholder: 'e.g. source',
		valuePlaceholder: 'e.g. crm',
		values: 'text',
		nameHelp: 'Give every attribute a name, e.g. source.',
	},
	json: {
		modeDescription: 'Give the attributes as a JSON object',
		default: '{\n  "source": "crm",\n  "department": "sales"\n}',
		description: 'A JSON object of custom attributes, e.g. {"source": "crm", "pages": 12}',
		help: 'Give a JSON object of attributes, e.g. {"source": "crm", "pages": 12}.',
	},
};

const INPUT_FILE: INodeProperties = {
	displayName: 'Input Binary Field',
	name: 'binaryPropertyName',
	type: 'string',
	default: 'data',
	required: true,
	hint: 'The name of the input binary field containing the file to upload',
};

const FILE_NAME: INodeProperties = {
	displayName: 'File Name',
	name: 'fileName',
	type: 'string',
	default: '',
	placeholder: 'e.g. handbook.pdf',
	description:
		"Name of the file in BotDojo. Leave empty to use the binary's file name (or, without one, the last segment of the logical path).",
};

const properties: INodeProperties[] = [
	INPUT_FILE,
	logicalPathProperty(
		`Where the document lives in the project. Upload to the same path again to make a new version of the same document. ${UPLOAD_PATH_RULES}`,
	),
	FILE_NAME,
	...fieldsOrJsonProperties(META),
];

function readBinary(ctx: IExecuteFunctions, place: InputPlace) {
	const property = requireTextParameter(
		ctx,
		INPUT_FILE,
		place.itemIndex,
		'Enter the name of the binary field that holds the file, e.g. data.',
	);
	const binaries = ctx.getInputData()[place.itemIndex]?.binary ?? {};
	const binary = binaries[property];
	if (!binary) {
		const present = Object.keys(binaries);
		throw invalidInput(
			place,
			INPUT_FILE.displayName,
			`the item has no binary field "${property}"`,
			present.length
				? `The item's binary fields are: ${present.join(', ')}. Enter one of them.`
				: 'The item has no binary data at all: put a node that outputs a file (e.g. Read/Write Files from Disk, HTTP Request) before this one.',
		);
	}
	return binary;
}

/** Read size for binaries kept outside the item: a few dozen Blob parts for a large file. */
const CHUNK_BYTES = 1024 * 1024;

/**
 * The n8n binary as a Blob for a multipart body, holding the file in memory once at most.
 * A binary that n8n keeps outside the item (filesystem, S3, database mode: it has an `id`) is
 * streamed, each chunk becoming a Blob part: a Blob made of Blobs references them without
 * copying, so the file never sits in memory both as one Buffer and as the Blob.
 */
async function binaryAsBlob(ctx: IExecuteFunctions, binary: IBinaryData) {
	const type = binary.mimeType || 'application/octet-stream';
	if (binary.id) {
		const stream = await ctx.helpers.getBinaryStream(binary.id, CHUNK_BYTES);
		const parts: Blob[] = [];
		for await (const chunk of stream) parts.push(new Blob([chunk as Uint8Array<ArrayBuffer>]));
		return new Blob(parts, { type });
	}
	// Without an id the file is in the item itself, base64-encoded.
	const buffer = Buffer.from(binary.data, BINARY_ENCODING);
	// Node's Buffers are never backed by a SharedArrayBuffer here; the cast only narrows the type.
	return new Blob([buffer as Uint8Array<ArrayBuffer>], { type });
}

export const operation = defineOperation({
	option: {
		name: 'Upload',
		value: 'upload',
		action: 'Upload document',
		description:
			'Store a file of the input under a logical path; uploading to the same path again makes a new version of the same document',
	},
	description: properties,
	prepare(itemIndex) {
		const place = placeOf(this, itemIndex);
		const logicalPath = readUploadPath(this, itemIndex);
		const binary = readBinary(this, place);
		const given = this.getNodeParameter(FILE_NAME.name, itemIndex, '');
		const fileName =
			(typeof given === 'string' && given.trim()) ||
			binary.fileName?.trim() ||
			logicalPath.split('/').pop() ||
			'';
		if (hasControlCharacter(fileName)) {
			throw invalidInput(
				place,
				FILE_NAME.displayName,
				'contains a control character (e.g. a line break)',
				'Enter a plain file name, e.g. handbook.pdf, or leave it empty to use the binary’s.',
			);
		}
		return { binary, fileName, logicalPath, meta: readFieldsOrJson(this, itemIndex, META) };
	},
	async execute({ binary, fileName, logicalPath, meta }, itemIndex) {
		const file = await binaryAsBlob(this, binary);
		return await uploadDocument(this, { file, fileName, logicalPath, meta }, itemIndex);
	},
});
