/**
 * The logical path of a document: where it lives in the project. Uploads check it strictly,
 * so that every stored path is plain; lookups only refuse what can never be a path.
 */
import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { invalidInput, placeOf, requireText } from '../../shared/validation';

const LOGICAL_PATH = 'Logical Path';

const MAX_LENGTH = 1024;

export const UPLOAD_PATH_RULES =
	'Use segments separated by "/", e.g. docs/handbook.pdf: no leading, trailing or double "/", no "." or ".." segments, no backslashes or control characters, at most 1024 characters. Spaces around the whole path are removed.';

const LOOKUP_PATH_RULES =
	'Enter the logical path the document was uploaded under, e.g. docs/handbook.pdf.';

/** The Logical Path parameter, as every operation shows it; `description` says what it is for. */
export function logicalPathProperty(
	description: string,
	displayOptions?: INodeProperties['displayOptions'],
): INodeProperties {
	return {
		displayName: LOGICAL_PATH,
		name: 'logicalPath',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. docs/handbook.pdf',
		displayOptions,
		description,
	};
}

/** Whether the text holds an ASCII control character (U+0000–U+001F, U+007F), e.g. a line break. */
export function hasControlCharacter(text: string) {
	return [...text].some((char) => char < ' ' || char === '\x7f');
}

/** The item's path, trimmed; `rules` is the help of every error about it. */
function readPath(ctx: IExecuteFunctions, itemIndex: number, rules: string) {
	const place = placeOf(ctx, itemIndex);
	const value = ctx.getNodeParameter('logicalPath', itemIndex, '');
	const path = requireText(place, LOGICAL_PATH, value, rules);
	const refuse = (problem: string) => invalidInput(place, LOGICAL_PATH, problem, rules);
	if (hasControlCharacter(path)) throw refuse('contains a control character (e.g. a line break)');
	return { path, refuse };
}

/** The item's path to store a document under: trimmed, then checked segment by segment. */
export function readUploadPath(ctx: IExecuteFunctions, itemIndex: number) {
	const { path, refuse } = readPath(ctx, itemIndex, UPLOAD_PATH_RULES);
	if (path.includes('\\')) throw refuse('contains a backslash');
	if (path.length > MAX_LENGTH) throw refuse(`is ${path.length} characters long`);
	if (path.startsWith('/')) throw refuse(`starts with "/" ("${path}")`);
	if (path.endsWith('/')) throw refuse(`ends with "/" ("${path}")`);
	for (const segment of path.split('/')) {
		if (segment === '') throw refuse(`contains an empty segment "//" ("${path}")`);
		if (segment === '.' || segment === '..') {
			throw refuse(`contains a "${segment}" segment ("${path}")`);
		}
		if (segment.trim() !== segment) {
			throw refuse(`has a segment that starts or ends with a space ("${segment}")`);
		}
	}
	return path;
}

/** The item's path to look a document up by: whatever it was stored under, within reason. */
export function readLookupPath(ctx: IExecuteFunctions, itemIndex: number) {
	return readPath(ctx, itemIndex, LOOKUP_PATH_RULES).path;
}
