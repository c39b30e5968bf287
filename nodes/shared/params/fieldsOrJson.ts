/**
 * One way to give an object in a node: field by field, or as JSON (and, per node, other modes
 * such as None or Message ahead of them). The parameter names are the node's own, so saved
 * workflows keep theirs. Used by Run Flow's input and Upload Document's meta.
 */
import type {
	IDataObject,
	IExecuteFunctions,
	INodeProperties,
	INodePropertyOptions,
} from 'n8n-workflow';

import { invalidInput, parseJsonObject, placeOf, requireOption, requireText } from '../validation';

export interface FieldsOrJson {
	/** What the object is, e.g. "Meta": also "Meta Fields" and "Meta (JSON)". */
	label: string;
	names: { mode: string; fields: string; json: string };
	/** Modes listed ahead of Fields and JSON (e.g. None, Message); the node reads those itself. */
	otherModes?: INodePropertyOptions[];
	defaultMode: string;
	/** Of the mode parameter. */
	description: string;
	fields: {
		/** One entry, e.g. "Attribute": "Add Attribute", "attribute 2" in errors. */
		entry: string;
		modeDescription: string;
		description?: string;
		namePlaceholder: string;
		valuePlaceholder?: string;
		valueDescription?: string;
		/** text: sent as text; asGiven: as the field or its expression holds it. */
		values: 'text' | 'asGiven';
		/** The help of an error about a name, e.g. "Give every attribute a name, e.g. source." */
		nameHelp: string;
	};
	json: {
		modeDescription: string;
		default: string;
		description: string;
		/** What valid JSON looks like; the help of an error about it. */
		help: string;
	};
	/** Added to the help of every error, e.g. that nothing was sent. */
	moreHelp?: string;
}

/** The mode parameter. */
function modeProperty(spec: FieldsOrJson): INodeProperties {
	// A plain name for the node's own default: n8n's lint reads `default: name` as a value
	// passed in, while `default: spec.defaultMode` reads to it as no default at all.
	const { fields, json, defaultMode } = spec;
	return {
		displayName: spec.label,
		name: spec.names.mode,
		type: 'options',
		noDataExpression: true,
		options: [
			...(spec.otherModes ?? []),
			{ name: 'Using Fields Below', value: 'fields', description: fields.modeDescription },
			{ name: 'Using JSON', value: 'json', description: json.modeDescription },
		],
		default: defaultMode,
		description: spec.description,
	};
}

/** The mode parameter, then the fields and the JSON parameters. */
export function fieldsOrJsonProperties(spec: FieldsOrJson): INodeProperties[] {
	const show = (mode: string) => ({ show: { [spec.names.mode]: [mode] } });
	const { fields, json } = spec;
	const jsonDefault = json.default;
	return [
		modeProperty(spec),
		{
			displayName: `${spec.label} Fields`,
			name: spec.names.fields,
			type: 'fixedCollection',
			placeholder: `Add ${fields.entry}`,
			typeOptions: { multipleValues: true },
			default: {},
			displayOptions: show('fields'),
			...(fields.description ? { description: fields.description } : {}),
			options: [
				{
					displayName: fields.entry,
					name: 'field',
					values: [
						{
							displayName: 'Name',
							name: 'name',
							type: 'string',
							default: '',
							placeholder: fields.namePlaceholder,
						},
						{
							displayName: 'Value',
							name: 'value',
							type: 'string',
							default: '',
							...(fields.valuePlaceholder ? { placeholder: fields.valuePlaceholder } : {}),
							...(fields.valueDescription ? { description: fields.valueDescription } : {}),
						},
					],
				},
			],
		},
		{
			displayName: `${spec.label} (JSON)`,
			name: spec.names.json,
			type: 'json',
			default: jsonDefault,
			displayOptions: show('json'),
			description: json.description,
		},
	];
}

function withMoreHelp(spec: FieldsOrJson, help: string) {
	return spec.moreHelp ? `${help} ${spec.moreHelp}` : help;
}

/**
 * The object of one item in the Fields or JSON mode; undefined in any other mode and for Fields
 * with none given. Checked before any request: names are required and used once. A node that
 * reads the mode itself first (to handle its other modes) passes it in, so that it is read and
 * checked once; otherwise it is read here (a value that is none of the options is refused,
 * naming them).
 */
export function readFieldsOrJson(
	ctx: IExecuteFunctions,
	itemIndex: number,
	spec: FieldsOrJson,
	mode = requireOption(ctx, modeProperty(spec), itemIndex),
) {
	const place = placeOf(ctx, itemIndex);
	if (mode === 'json') {
		const json = ctx.getNodeParameter(spec.names.json, itemIndex, '{}');
		return parseJsonObject(place, `${spec.label} (JSON)`, json, withMoreHelp(spec, spec.json.help));
	}
	if (mode !== 'fields') return undefined;
	const given = (ctx.getNodeParameter(`${spec.names.fields}.field`, itemIndex, []) ?? []) as Array<{
		name?: string;
		value?: unknown;
	}>;
	if (given.length === 0) return undefined;
	// No prototype: "constructor" is a name like any other, and "__proto__" stays a key.
	const data = Object.create(null) as IDataObject;
	given.forEach((field, index) => {
		const name = requireText(
			place,
			`${spec.label} Fields › ${spec.fields.entry.toLowerCase()} ${index + 1} › Name`,
			field.name,
			withMoreHelp(spec, spec.fields.nameHelp),
		);
		if (Object.hasOwn(data, name)) {
			throw invalidInput(
				place,
				`${spec.label} Fields › "${name}"`,
				'is given twice',
				withMoreHelp(spec, 'Use each name once.'),
			);
		}
		const { value } = field;
		// Text mode: what the field shows is what is stored, even when an expression gave a number.
		data[name] =
			spec.fields.values === 'text' ? String(value ?? '') : (value as IDataObject[string]);
	});
	return data;
}
