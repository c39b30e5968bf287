/**
 * Run Flow's one operation on the shared runner: every item's parameters are read and checked
 * first (nothing is sent when one is invalid, unless Continue On Fail), then the flow runs once
 * per item in the session the item asks for. Its top-level parameters are here: the Flow ID, the
 * flow's input (`body`: a message, or the whole body as fields or as JSON), the session, and what
 * of the answer comes out (Simplify; Output when Run Flow is an AI Agent tool); the Options
 * collection is in options.ts.
 */
import {
	NodeOperationError,
	type IDataObject,
	type IExecuteFunctions,
	type INodeProperties,
} from 'n8n-workflow';

import { defineOperation } from '../../shared/execution';
import {
	fieldsOrJsonProperties,
	readFieldsOrJson,
	type FieldsOrJson,
} from '../../shared/params/fieldsOrJson';
import { flowIdProperty, readFlowId } from '../../shared/params/idLocator';
import { beforeVersion } from '../../shared/params/simplify';
import {
	invalidInput,
	placeOf,
	requireOption,
	requireText,
	requireTextParameter,
} from '../../shared/validation';
import { runFlowOnce, type RunIn } from '../helpers/flowRun';
import { runWithMemory } from '../helpers/memorySession';
import { assertRememberedMapVisible, runRemembered } from '../helpers/rememberByKey';
import { OPTION_NAMES, type RunOptions } from '../helpers/runOptions';
import {
	LEGACY_FIELDS_UNTIL,
	NOTHING_SENT,
	optionsProperty,
	readConcurrency,
	readRunOptions,
} from './options';

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

const SESSION_ID: INodeProperties = {
	displayName: 'Session ID',
	name: 'sessionId',
	type: 'string',
	default: '',
	placeholder: 'e.g. {{ $json.flowSessionId }}',
	displayOptions: { show: { sessionMode: ['continue'] } },
	description:
		'ID of the session to continue: the ID output by BotDojo Create Session, or the flowSessionId of an earlier run',
};

const SESSION_KEY: INodeProperties = {
	displayName: 'Session Key',
	name: 'sessionKey',
	type: 'string',
	default: '={{ $json.sessionId }}',
	displayOptions: { show: { sessionMode: ['remember'] } },
	builderHint: {
		propertyHint: 'Keep expr($json.sessionId) after a Chat Trigger: one BotDojo session per chat',
	},
	description:
		"Any text that identifies a conversation, e.g. the sessionId field of a Chat Trigger (the default). One n8n (regular mode) keeps the BotDojo session of each key in its memory and in the workflow's static data, saved by production executions and read back after a restart. Queue-mode workers refuse it: use Keep in Chat Memory there. The output's session field says whether the run continued, started or replaced a session.",
};

/** The simplified output's fields (see the Simplify tooltip), alphabetical as n8n lists options. */
const FIELDS = [
	['Canvases', 'canvases'],
	['Duration', 'durationMs'],
	['Error Message', 'errorMessage'],
	['Flow Request ID', 'flowRequestId'],
	['Flow Session ID', 'flowSessionId'],
	['Intermediate Steps', 'intermediateSteps'],
	['Status', 'status'],
	['Suggested Questions', 'suggestedQuestions'],
	['Text', 'text'],
	['Tool Calls', 'toolCalls'],
	['Version', 'version'],
].map(([name, value]) => ({ name, value, description: `The ${value} field` }));

/**
 * What of the answer comes out: Simplify on the node (top-level, as in n8n's AI nodes), and
 * Output when Run Flow is an AI Agent tool: n8n's UX guidelines ask a tool for an Output choice
 * of Simplified, Raw or Selected Fields (n8n's own tool nodes show it for `@tool` in place of the
 * Simplify toggle), so the agent reads only what it needs of the answer.
 */
const OUTPUT_PROPERTIES: INodeProperties[] = [
	{
		displayName: 'Simplify',
		name: 'simplify',
		type: 'boolean',
		default: true,
		description:
			"Whether to return only text, flowSessionId, flowRequestId, status, durationMs, version, toolCalls and intermediateSteps (the tool calls as n8n's AI Agent lists them), with errorMessage when the flow reported an error, canvases and suggestedQuestions when the answer has them, and logs when Include Logs is on, instead of the whole flow request record. Empty lists are left out, except intermediateSteps where an Evaluation node reads it.",
		displayOptions: { hide: { '@tool': [true] } },
	},
	{
		displayName: 'Output',
		name: 'toolOutput',
		type: 'options',
		noDataExpression: true,
		default: 'simplified',
		description: 'What of the answer the AI Agent reads',
		options: [
			{ name: 'Raw', value: 'raw', description: 'The whole flow request record' },
			{
				name: 'Selected Fields',
				value: 'selected',
				description: 'Only the fields of the simplified output you choose',
			},
			{
				name: 'Simplified',
				value: 'simplified',
				description: 'The answer text with its status, IDs, duration and tool calls',
			},
		],
		displayOptions: { show: { '@tool': [true] } },
	},
	{
		displayName: 'Fields',
		name: 'toolFields',
		type: 'multiOptions',
		options: FIELDS,
		default: ['text'],
		description: 'The fields of the simplified output the AI Agent reads',
		displayOptions: { show: { '@tool': [true], toolOutput: ['selected'] } },
	},
];

/** The node's inputs: a Memory input only for Session "Keep in Chat Memory". */
export const runFlowInputs = `={{ $parameter.sessionMode === 'memory' ? ['main', { type: 'ai_memory', displayName: 'Memory', maxConnections: 1, required: true }] : ['main'] }}`;

type SessionChoice =
	| { mode: 'new' }
	| { mode: 'continue'; id: string }
	| { mode: 'remember'; key: string }
	| { mode: 'memory' };

/** The run's `body` for one item, checked before any request. */
function readBody(ctx: IExecuteFunctions, itemIndex: number): IDataObject {
	const place = placeOf(ctx, itemIndex);
	// Read and checked once: readFieldsOrJson takes the mode it is given.
	const mode = requireOption(ctx, inputModeProperty, itemIndex);
	if (mode !== 'message') return readFieldsOrJson(ctx, itemIndex, INPUT, mode) ?? {};
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

/**
 * Which BotDojo session a run uses: a new one, a given one, the one remembered for a key (e.g. a
 * Chat Trigger's sessionId; see helpers/rememberByKey.ts), or the one kept in the chat memory.
 */
function readSession(ctx: IExecuteFunctions, itemIndex: number): SessionChoice {
	const mode = ctx.getNodeParameter('sessionMode', itemIndex, 'new');
	if (mode === 'continue') {
		const id = requireTextParameter(
			ctx,
			SESSION_ID,
			itemIndex,
			`Give the ID of an existing session, e.g. {{ $json.flowSessionId }} of an earlier run. ${NOTHING_SENT}`,
		);
		return { mode, id };
	}
	if (mode === 'remember') {
		const key = requireTextParameter(
			ctx,
			SESSION_KEY,
			itemIndex,
			`Give a text that identifies the conversation, e.g. {{ $json.sessionId }} after a Chat Trigger. ${NOTHING_SENT}`,
		);
		assertRememberedMapVisible(ctx, itemIndex);
		return { mode, key };
	}
	// n8n's tool variant of a node (AI Agent tool) has no inputs, so no Memory input either.
	if (mode === 'memory' && ctx.getNode().type.endsWith('Tool')) {
		throw new NodeOperationError(
			ctx.getNode(),
			'Session: Keep in Chat Memory is not available when the node is an AI Agent tool',
			{
				itemIndex,
				description: `A tool has no Memory input. Choose Remember by Key (one n8n in regular mode) or New Session. ${NOTHING_SENT}`,
			},
		);
	}
	return { mode: mode === 'memory' ? mode : 'new' };
}

/** Simplify, or as a tool its Output: Selected Fields keeps the fields chosen. */
function readOutputShape(
	ctx: IExecuteFunctions,
	itemIndex: number,
): Pick<RunOptions, 'simplify' | 'fields'> {
	const output = ctx.getNodeParameter('toolOutput', itemIndex, '');
	if (!output) return { simplify: ctx.getNodeParameter('simplify', itemIndex, true) as boolean };
	if (output !== 'selected') return { simplify: output !== 'raw' };
	const chosen = ctx.getNodeParameter('toolFields', itemIndex, []);
	const fields = Array.isArray(chosen)
		? chosen.filter((f) => FIELDS.some((field) => field.value === f))
		: [];
	if (fields.length === 0) {
		throw invalidInput(
			placeOf(ctx, itemIndex),
			'Fields',
			'has no field chosen',
			'Choose at least one field, e.g. Text, or set Output to Simplified.',
		);
	}
	return { simplify: true, fields };
}

export const operation = defineOperation({
	option: {
		name: 'Run',
		value: 'run',
		action: 'Run a flow',
		description: 'Run the flow once per item and output its answer',
	},
	description: [
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
		{
			displayName: 'Session',
			name: 'sessionMode',
			type: 'options',
			noDataExpression: true,
			options: [
				{
					name: 'New Session',
					value: 'new',
					description: 'Each run starts a new session, without memory of earlier runs',
				},
				{
					name: 'Continue Session',
					value: 'continue',
					description: 'Run in a given session, so the flow remembers its history',
				},
				{
					name: 'Remember by Key',
					value: 'remember',
					description:
						'Start a session for each new key and continue it for later runs with the same key. One n8n only: queue-mode workers refuse it.',
				},
				{
					name: 'Keep in Chat Memory',
					value: 'memory',
					description:
						"Keep each conversation's session in the chat memory connected below (Redis or Postgres Chat Memory): works in queue mode, whichever worker runs a message",
				},
			],
			default: 'new',
			builderHint: {
				propertyHint:
					'remember (Session Key expr($json.sessionId)) for a chat on one n8n (refused on queue-mode workers); memory only with a Redis or Postgres Chat Memory on the memory() input (works in queue mode); continue with a flowSessionId from Create Session',
			},
		},
		SESSION_ID,
		SESSION_KEY,
		...OUTPUT_PROPERTIES,
		optionsProperty,
	],

	concurrency: readConcurrency,

	prepare(itemIndex) {
		return {
			flowId: readFlowId(this, itemIndex, NOTHING_SENT),
			body: readBody(this, itemIndex),
			session: readSession(this, itemIndex),
			options: readRunOptions(this, itemIndex, readOutputShape(this, itemIndex)),
		};
	},

	async execute(run, itemIndex) {
		const runIn: RunIn = (sessionId) => runFlowOnce(this, { ...run, itemIndex, sessionId });
		const { session, flowId } = run;
		// A flow that reported an error fails the item only after its session was kept.
		const outcome =
			session.mode === 'remember'
				? await runRemembered(this, itemIndex, flowId, session.key, runIn)
				: session.mode === 'memory'
					? await runWithMemory(this, itemIndex, flowId, runIn)
					: await runIn(session.mode === 'continue' ? session.id : undefined);
		if (outcome.failure) throw outcome.failure;
		return outcome.json;
	},
});
