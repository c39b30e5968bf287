/**
 * The flow ID and the flow's input (`body`): a message, or the whole body as fields or as JSON
 * (the shared Fields-or-JSON kit; the parameter names are the ones saved workflows hold).
 */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import {
	fieldsOrJsonProperties,
	readFieldsOrJson,
	type FieldsOrJson,
} from '../../shared/params/fieldsOrJson';
import { flowIdProperty } from '../../shared/params/idLocator';
import { beforeVersion } from '../../shared/params/simplify';
import { invalidInput, requireText, type InputPlace, placeOf } from '../../shared/validation';
import { OPTION_NAMES } from '../helpers/runOptions';
import { LEGACY_FIELDS_UNTIL } from './options';

/** Appended to input errors: they are raised before any request, so running again is safe. */
export const NOTHING_SENT = 'Nothing was sent to BotDojo, so it is safe to fix this and run again.';

const INPUT: FieldsOrJson = {
	label: 'Input',
	names: { mode: 'inputMode', fields: 'bodyFields', json: 'bodyJson' },
	otherModes: [
		{
			name: 'Message',
			value: 'message',
			description: 'One text, as chat-compatible flows take it',
		},
	],
	defaultMode: 'message',
	description: "How to give the flow its input (the schema of the flow's Start node)",
	fields: {
		entry: 'Field',
		modeDescription: 'The input object, field by field',
		namePlaceholder: 'e.g. text_input',
		valueDescription:
			'Sent as text; an expression can give a number, an object or a list, which are sent as such',
		values: 'asGiven',
		nameHelp: 'Give every field the name of an input property of the flow, e.g. text_input.',
	},
	json: {
		modeDescription: 'The whole input object of the flow',
		default: '{\n  "text_input": "Hello"\n}',
		description: "The flow's input object, matching the schema of its Start node",
		help: 'Give the flow\'s input as a JSON object, e.g. {"text_input": "Hello"}.',
	},
	moreHelp: NOTHING_SENT,
};

const [inputModeProperty, ...fieldsAndJsonProperties] = fieldsOrJsonProperties(INPUT);

const MESSAGE: INodeProperties = {
	displayName: 'Message',
	name: 'message',
	type: 'string',
	typeOptions: { rows: 3 },
	default: '',
	placeholder: 'e.g. {{ $json.chatInput }}',
	displayOptions: { show: { inputMode: ['message'] } },
	builderHint: {
		propertyHint:
			'Usually expr($json.chatInput) after a Chat Trigger; as an AI Agent tool, $fromAI(). Sent as the flow input text_input.',
	},
	description:
		'The text to send. After a Chat Trigger, use its chatInput field (as in the placeholder); for the AI Agent, let the model fill it in.',
};

export const inputProperties: INodeProperties[] = [
	flowIdProperty(
		"ID of the flow to run (shown in the flow's address and on its API tab)",
		'e.g. flow_support_bot',
	),
	inputModeProperty,
	MESSAGE,
	{
		// Moved to Options › Message Property. Kept on version 1 only, shown where a saved
		// workflow holds another name than text_input, so that its choice is kept (n8n drops the
		// values of parameters it does not know).
		displayName: 'Message Property (Old Setting)',
		name: 'messageProperty',
		type: 'string',
		default: 'text_input',
		displayOptions: {
			show: { ...beforeVersion(LEGACY_FIELDS_UNTIL), inputMode: ['message'] },
			hide: { messageProperty: ['text_input'] },
		},
		description: `Set Options › ${OPTION_NAMES.messageProperty} instead; that option wins when both are set`,
	},
	...fieldsAndJsonProperties,
];

/** The run's `body` for one item, checked before any request. */
export function readBody(ctx: IExecuteFunctions, itemIndex: number): IDataObject {
	const place: InputPlace = placeOf(ctx, itemIndex);
	const mode = ctx.getNodeParameter('inputMode', itemIndex, 'message') as string;
	if (mode !== 'message') return readFieldsOrJson(ctx, itemIndex, INPUT) ?? {};
	const option = (ctx.getNodeParameter('options', itemIndex, {}) as IDataObject).messageProperty;
	const property = requireText(
		place,
		option === undefined
			? OPTION_NAMES.messageProperty
			: `Options › ${OPTION_NAMES.messageProperty}`,
		option ?? ctx.getNodeParameter('messageProperty', itemIndex, 'text_input'),
		`Enter the input property that takes the text, usually text_input. ${NOTHING_SENT}`,
	);
	const message = ctx.getNodeParameter(MESSAGE.name, itemIndex, '');
	if (message === undefined || message === null || message === '') {
		throw invalidInput(
			place,
			MESSAGE.displayName,
			'is empty',
			`Enter the text to send, e.g. {{ $json.chatInput }} after a Chat Trigger. ${NOTHING_SENT}`,
		);
	}
	return { [property]: typeof message === 'string' ? message : JSON.stringify(message) };
}
