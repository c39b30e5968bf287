/**
 * The flow ID and the flow's input (`body`): a message, the whole body as JSON, or fields.
 */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { flowIdProperty } from '../../shared/params/flowId';
import {
	parseJsonObject,
	requireText,
	invalidInput,
	type InputPlace,
} from '../../shared/validation';

/** Appended to input errors: they are raised before any request, so running again is safe. */
export const NOTHING_SENT = 'Nothing was sent to BotDojo, so it is safe to fix this and run again.';

export const inputProperties: INodeProperties[] = [
	flowIdProperty(
		"ID of the flow to run (shown in the flow's address and on its API tab)",
		'e.g. flow_support_bot',
	),
	{
		displayName: 'Input',
		name: 'inputMode',
		type: 'options',
		noDataExpression: true,
		options: [
			{
				name: 'Message',
				value: 'message',
				description: 'One text, as chat-compatible flows take it',
			},
			{ name: 'JSON', value: 'json', description: 'The whole input object of the flow' },
			{ name: 'Fields', value: 'fields', description: 'The input object, field by field' },
		],
		default: 'message',
		description: "How to give the flow its input (the schema of the flow's Start node)",
	},
	{
		displayName: 'Message',
		name: 'message',
		type: 'string',
		typeOptions: { rows: 3 },
		default: '',
		placeholder: 'e.g. {{ $json.chatInput }}',
		displayOptions: { show: { inputMode: ['message'] } },
		description:
			'The text to send. After a Chat Trigger, use its chatInput field (as in the placeholder); for the AI Agent, let the model fill it in.',
	},
	{
		displayName: 'Message Property',
		name: 'messageProperty',
		type: 'string',
		default: 'text_input',
		displayOptions: { show: { inputMode: ['message'] } },
		description:
			"Name of the input property of the flow's Start node that takes the text (text_input in chat-compatible flows)",
	},
	{
		displayName: 'Input (JSON)',
		name: 'bodyJson',
		type: 'json',
		default: '{\n  "text_input": "Hello"\n}',
		displayOptions: { show: { inputMode: ['json'] } },
		description: "The flow's input object, matching the schema of its Start node",
	},
	{
		displayName: 'Input Fields',
		name: 'bodyFields',
		type: 'fixedCollection',
		placeholder: 'Add Field',
		typeOptions: { multipleValues: true },
		default: {},
		displayOptions: { show: { inputMode: ['fields'] } },
		options: [
			{
				displayName: 'Field',
				name: 'field',
				values: [
					{
						displayName: 'Name',
						name: 'name',
						type: 'string',
						default: '',
						placeholder: 'e.g. text_input',
					},
					{
						displayName: 'Value',
						name: 'value',
						type: 'string',
						default: '',
						description:
							'Sent as text; an expression can give a number, an object or a list, which are sent as such',
					},
				],
			},
		],
	},
];

/** The run's `body` for one item, checked before any request. */
export function readBody(ctx: IExecuteFunctions, itemIndex: number): IDataObject {
	const place: InputPlace = { node: ctx.getNode(), itemIndex };
	const mode = ctx.getNodeParameter('inputMode', itemIndex, 'message') as string;
	if (mode === 'json') {
		return parseJsonObject(
			place,
			'Input (JSON)',
			ctx.getNodeParameter('bodyJson', itemIndex, '{}'),
			`Give the flow's input as a JSON object, e.g. {"text_input": "Hello"}. ${NOTHING_SENT}`,
		);
	}
	if (mode === 'fields') {
		const fields = (ctx.getNodeParameter('bodyFields.field', itemIndex, []) ?? []) as Array<{
			name?: string;
			value?: unknown;
		}>;
		const body: IDataObject = {};
		fields.forEach((field, index) => {
			const name = requireText(
				place,
				`Input Fields › field ${index + 1} › Name`,
				field.name,
				`Give every field the name of an input property of the flow, e.g. text_input. ${NOTHING_SENT}`,
			);
			body[name] = field.value as IDataObject[string];
		});
		return body;
	}
	const property = requireText(
		place,
		'Message Property',
		ctx.getNodeParameter('messageProperty', itemIndex, 'text_input'),
		`Enter the input property that takes the text, usually text_input. ${NOTHING_SENT}`,
	);
	const message = ctx.getNodeParameter('message', itemIndex, '');
	if (message === undefined || message === null || message === '') {
		throw invalidInput(
			place,
			'Message',
			'is empty',
			`Enter the text to send, e.g. {{ $json.chatInput }} after a Chat Trigger. ${NOTHING_SENT}`,
		);
	}
	return { [property]: typeof message === 'string' ? message : JSON.stringify(message) };
}
