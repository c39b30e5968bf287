/**
 * Session data: named stores, each holding variables that the flow reads with
 * `sessionState.get(<store>).getVariable(<variable>)`.
 */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import {
	fieldsOrJsonProperties,
	readFieldsOrJson,
	type FieldsOrJson,
} from '../../shared/params/fieldsOrJson';
import {
	invalidInput,
	isJsonObject,
	jsonOrText,
	requireOption,
	requireText,
	placeOf,
} from '../../shared/validation';

const JSON_SHAPE =
	'Use {"<store>": {"variables": {"<variable>": <value>}}}, e.g. {"customer": {"variables": {"profile": {"plan": "pro"}}}}.';

/** The mode and the JSON; the fields are Stores (each holds variables), built and read here. */
const SESSION_DATA: FieldsOrJson = {
	label: 'Session Data',
	names: { mode: 'dataMode', fields: 'stores', json: 'sessionDataJson' },
	otherModes: [{ name: 'None', value: 'none', description: 'Start an empty session' }],
	defaultMode: 'fields',
	description: 'Data the flow can read from its first message on',
	fields: {
		entry: 'Store',
		modeDescription: 'Enter stores and variables one by one',
		namePlaceholder: 'e.g. customer',
		values: 'asGiven',
		nameHelp: 'Give every store a name, e.g. customer.',
	},
	json: {
		modeDescription: 'Give the whole session data as JSON',
		default:
			'{\n  "customer": {\n    "variables": {\n      "profile": { "name": "Ada", "plan": "pro" }\n    }\n  }\n}',
		description:
			'An object whose keys are store names and whose values are {"variables": {...}}, each variable holding a JSON value',
		help: JSON_SHAPE,
	},
};

const [DATA_MODE, , SESSION_DATA_JSON] = fieldsOrJsonProperties(SESSION_DATA);

export const sessionDataProperties: INodeProperties[] = [
	DATA_MODE,
	{
		displayName: 'Stores',
		name: 'stores',
		type: 'fixedCollection',
		placeholder: 'Add Store',
		typeOptions: { multipleValues: true },
		default: {},
		displayOptions: { show: { dataMode: ['fields'] } },
		description:
			'Each store is a named group of variables. In a code node of the flow, read a variable with sessionState.get("store").getVariable("variable").',
		options: [
			{
				displayName: 'Store',
				name: 'store',
				values: [
					{
						displayName: 'Store Name',
						name: 'name',
						type: 'string',
						default: '',
						placeholder: 'e.g. customer',
					},
					{
						displayName: 'Variables',
						name: 'variables',
						type: 'fixedCollection',
						placeholder: 'Add Variable',
						typeOptions: { multipleValues: true },
						default: {},
						options: [
							{
								displayName: 'Variable',
								name: 'variable',
								values: [
									{
										displayName: 'Name',
										name: 'name',
										type: 'string',
										default: '',
										placeholder: 'e.g. profile',
									},
									{
										displayName: 'Value',
										name: 'value',
										type: 'string',
										default: '',
										placeholder: 'e.g. {"plan": "pro"}',
										description:
											'A JSON object, array, number or boolean is stored as such; any other text is stored as text',
									},
								],
							},
						],
					},
				],
			},
		],
	},
	SESSION_DATA_JSON,
];

interface StoreField {
	name?: string;
	variables?: { variable?: Array<{ name?: string; value?: unknown }> };
}

/** Reads the session data of the current item in either form, and checks its shape. */
export function readSessionData(ctx: IExecuteFunctions, itemIndex: number) {
	const place = placeOf(ctx, itemIndex);
	// Read and checked once: readFieldsOrJson takes the mode it is given.
	const mode = requireOption(ctx, DATA_MODE, itemIndex);
	if (mode === 'none') return undefined;
	if (mode === 'json') {
		const data = readFieldsOrJson(ctx, itemIndex, SESSION_DATA, mode) as IDataObject;
		// Every store must be an object with a variables object.
		for (const [name, store] of Object.entries(data)) {
			if (!isJsonObject(store) || !isJsonObject(store.variables)) {
				throw invalidInput(
					place,
					`Session Data (JSON) › "${name}"`,
					'must be an object with a "variables" object',
					JSON_SHAPE,
				);
			}
		}
		return data;
	}
	const stores = (ctx.getNodeParameter('stores.store', itemIndex, []) as StoreField[]) ?? [];
	// No prototype: "constructor" is a name like any other, and "__proto__" stays a key.
	const data = Object.create(null) as IDataObject;
	stores.forEach((store, storeIndex) => {
		const name = requireText(
			place,
			`Stores › store ${storeIndex + 1} › Store Name`,
			store.name,
			'Give every store a name, e.g. customer.',
		);
		if (Object.hasOwn(data, name))
			throw invalidInput(
				place,
				`Stores › "${name}"`,
				'is given twice',
				'Use each store name once and put all its variables in it.',
			);
		const variables = Object.create(null) as IDataObject;
		(store.variables?.variable ?? []).forEach((variable, variableIndex) => {
			const label = `Stores › "${name}" › variable ${variableIndex + 1}`;
			const variableName = requireText(
				place,
				`${label} › Name`,
				variable.name,
				'Give every variable a name, e.g. profile.',
			);
			variables[variableName] = jsonOrText(
				place,
				`${label} › Value`,
				variable.value,
			) as IDataObject;
		});
		data[name] = { variables };
	});
	return stores.length ? data : undefined;
}
