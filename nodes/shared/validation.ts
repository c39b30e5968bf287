/**
 * Checks of user input, run before any request: text, whole numbers, a choice of options, JSON,
 * the output file field. Each error names the parameter, the item and what would be valid.
 */
import {
	NodeOperationError,
	type IDataObject,
	type IExecuteFunctions,
	type INode,
	type INodeProperties,
	type INodePropertyOptions,
} from 'n8n-workflow';

export interface InputPlace {
	readonly node: INode;
	itemIndex: number;
}

/**
 * Where an item's input is read. The node is fetched only when an error is built: n8n's
 * getNode() deep-copies the node, which adds up over thousands of valid items.
 */
export function placeOf(ctx: { getNode(): INode }, itemIndex: number) {
	return {
		get node() {
			return ctx.getNode();
		},
		itemIndex,
	};
}

export function invalidInput(place: InputPlace, parameter: string, problem: string, valid: string) {
	// The item is given as itemIndex only: n8n's editor adds it to the message as "[item N]".
	return new NodeOperationError(place.node, `${parameter}: ${problem}`, {
		itemIndex: place.itemIndex,
		description: valid,
	});
}

/** A non-empty string, trimmed. */
export function requireText(place: InputPlace, parameter: string, value: unknown, valid: string) {
	if (typeof value === 'number') return String(value);
	if (typeof value !== 'string' || value.trim() === '') {
		throw invalidInput(place, parameter, 'is empty', valid);
	}
	return value.trim();
}

/**
 * A required text parameter of the item, read by its property's name and default and named in
 * errors by its display name: each is written once, in the property.
 */
export function requireTextParameter(
	ctx: IExecuteFunctions,
	property: INodeProperties,
	itemIndex: number,
	valid: string,
) {
	// n8n fills in defaults; an expression default (`={{ … }}`) is no text to fall back on.
	const fallback = String(property.default ?? '').startsWith('=') ? '' : property.default;
	const value = ctx.getNodeParameter(property.name, itemIndex, fallback);
	return requireText(placeOf(ctx, itemIndex), property.displayName, value, valid);
}

/** A whole number in [min, max], given as a number or as numeric text (from an expression). */
export function readWholeNumber(
	place: InputPlace,
	parameter: string,
	value: unknown,
	min: number,
	max: number,
) {
	const valid = `Enter a whole number from ${min} to ${max}.`;
	const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
	if (typeof number !== 'number' || !Number.isInteger(number)) {
		throw invalidInput(place, parameter, `${JSON.stringify(value)} is not a whole number`, valid);
	}
	if (number < min || number > max) {
		throw invalidInput(place, parameter, `${number} is out of range`, valid);
	}
	return number;
}

/**
 * The item's choice of an options parameter. n8n hands on any saved value (a workflow edited by
 * hand, or saved by another version): one that is not among the options is an error, never a
 * silent fallback to another choice.
 */
export function requireOption(
	ctx: IExecuteFunctions,
	property: INodeProperties,
	itemIndex: number,
) {
	return checkedOption(
		placeOf(ctx, itemIndex),
		property,
		ctx.getNodeParameter(property.name, itemIndex, property.default),
	);
}

/** An options parameter's value, refused (named, with the valid ones) when none of them. */
export function checkedOption(place: InputPlace, property: INodeProperties, value: unknown) {
	const options = property.options as INodePropertyOptions[];
	if (options.some((option) => option.value === value)) return value as string;
	throw invalidInput(
		place,
		property.displayName,
		`${JSON.stringify(value)} is not one of its options`,
		`Choose one of: ${options.map((option) => `${option.name} (${option.value})`).join(', ')}.`,
	);
}

/** The output binary field of an operation that outputs a file, as n8n's own nodes name it. */
export function outputFileProperty(
	name: string,
	displayOptions: INodeProperties['displayOptions'],
): INodeProperties {
	return {
		displayName: 'Put Output File in Field',
		name,
		type: 'string',
		default: 'data',
		required: true,
		hint: 'The name of the output binary field to put the file in',
		displayOptions,
	};
}

/** The field named by the item's output file parameter, which must not be empty. */
export function readOutputFileField(
	ctx: IExecuteFunctions,
	property: INodeProperties,
	itemIndex: number,
) {
	return requireTextParameter(
		ctx,
		property,
		itemIndex,
		'Enter the name of the binary field to put the file in, e.g. data.',
	);
}

/** A JSON object given either as an object (an expression's result) or as JSON text. */
export function parseJsonObject(
	place: InputPlace,
	parameter: string,
	value: unknown,
	valid: string,
) {
	let parsed = value;
	if (typeof value === 'string') {
		if (value.trim() === '') throw invalidInput(place, parameter, 'is empty', valid);
		try {
			parsed = JSON.parse(value);
		} catch (error) {
			throw invalidInput(
				place,
				parameter,
				`is not valid JSON (${(error as Error).message})`,
				valid,
			);
		}
	}
	if (!isJsonObject(parsed)) {
		const kind =
			parsed === null ? 'null' : Array.isArray(parsed) ? 'an array' : `a ${typeof parsed}`;
		throw invalidInput(place, parameter, `must be a JSON object but is ${kind}`, valid);
	}
	return parsed;
}

/** Whether a parsed JSON value is an object (not null, not an array). */
export function isJsonObject(value: unknown): value is IDataObject {
	return value !== null && typeof value === 'object' && !Array.isArray(value);
}

export const JSON_OR_TEXT_HELP = 'Fix the JSON, or enter plain text without a leading { or [.';

/**
 * A value that may be JSON or text: text that looks like JSON (an object, an array, a number,
 * true, false or null) must be valid JSON and is parsed; other text stays text.
 */
export function jsonOrText(
	place: InputPlace,
	parameter: string,
	value: unknown,
	valid = JSON_OR_TEXT_HELP,
): unknown {
	if (typeof value !== 'string') return value;
	const text = value.trim();
	if (!/^[[{]/.test(text) && !/^(-?\d+(\.\d+)?([eE][+-]?\d+)?|true|false|null)$/.test(text)) {
		return value;
	}
	try {
		return JSON.parse(text);
	} catch (error) {
		throw invalidInput(
			place,
			parameter,
			`looks like JSON but is not valid (${(error as Error).message})`,
			valid,
		);
	}
}
