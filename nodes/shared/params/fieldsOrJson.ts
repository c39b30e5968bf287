/**
 * One way to give an object in a node: None, Fields (name and value, one by one) or JSON. The
 * parameter names are the node's own, so saved workflows keep theirs.
 */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { jsonOrText, parseJsonObject, requireText } from '../validation';

export interface FieldsOrJson {
	/** What the object is, e.g. "Metadata". */
	label: string;
	names: { mode: string; fields: string; json: string };
	defaultMode: 'none' | 'fields' | 'json';
	/** Offer None (send nothing). */
	withNone?: boolean;
	description: string;
	jsonDefault: string;
	/** What valid input looks like; also the error's help. */
	example: string;
}

/* eslint-disable n8n-nodes-base/node-param-default-missing -- the defaults are the node's own, passed in */
export function fieldsOrJsonProperties(spec: FieldsOrJson): INodeProperties[] {
	const show = (mode: string) => ({ show: { [spec.names.mode]: [mode] } });
	return [
		{
			displayName: spec.label,
			name: spec.names.mode,
			type: 'options',
			noDataExpression: true,
			options: [
				...(spec.withNone ? [{ name: 'None', value: 'none', description: 'Send none' }] : []),
				{ name: 'Using Fields Below', value: 'fields', description: 'Enter fields one by one' },
				{ name: 'Using JSON', value: 'json', description: 'Give the whole object as JSON' },
			],
			default: spec.defaultMode,
			description: spec.description,
		},
		{
			displayName: `${spec.label} Fields`,
			name: spec.names.fields,
			type: 'fixedCollection',
			placeholder: 'Add Field',
			typeOptions: { multipleValues: true },
			default: {},
			displayOptions: show('fields'),
			options: [
				{
					displayName: 'Field',
					name: 'field',
					values: [
						{ displayName: 'Name', name: 'name', type: 'string', default: '' },
						{
							displayName: 'Value',
							name: 'value',
							type: 'string',
							default: '',
							description:
								'A JSON object, array, number or boolean is sent as such; any other text as text',
						},
					],
				},
			],
		},
		{
			displayName: `${spec.label} (JSON)`,
			name: spec.names.json,
			type: 'json',
			default: spec.jsonDefault,
			displayOptions: show('json'),
			description: `${spec.description}, as a JSON object`,
		},
	];
}
/* eslint-enable n8n-nodes-base/node-param-default-missing */

/** The object of one item, or undefined for None (or no fields). Checked before any request. */
export function readFieldsOrJson(
	ctx: IExecuteFunctions,
	itemIndex: number,
	spec: FieldsOrJson,
): IDataObject | undefined {
	const place = { node: ctx.getNode(), itemIndex };
	const mode = ctx.getNodeParameter(spec.names.mode, itemIndex, spec.defaultMode) as string;
	if (mode === 'none') return undefined;
	if (mode === 'json') {
		const json = ctx.getNodeParameter(spec.names.json, itemIndex, '{}');
		return parseJsonObject(place, `${spec.label} (JSON)`, json, spec.example);
	}
	const fields = (ctx.getNodeParameter(`${spec.names.fields}.field`, itemIndex, []) ??
		[]) as Array<{ name?: string; value?: unknown }>;
	if (fields.length === 0) return undefined;
	const data: IDataObject = {};
	fields.forEach((field, index) => {
		const label = `${spec.label} Fields › field ${index + 1}`;
		const name = requireText(place, `${label} › Name`, field.name, spec.example);
		data[name] = jsonOrText(place, `${label} › Value`, field.value) as IDataObject[string];
	});
	return data;
}
