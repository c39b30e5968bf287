/**
 * The Options collection: what is sent in the run's `options`, how the answer is read and
 * shaped, timeouts, retries and concurrency. Read and checked in readOptions.ts.
 */
import type { INodeProperties } from 'n8n-workflow';

import { beforeVersion } from '../../shared/params/simplify';
import { OPTION_NAMES } from '../helpers/runOptions';

/** The events BotDojo can stream, in the order they are sent when narrowed. */
const EVENTS = [
	{ value: 'onLog', name: 'Logs', description: 'Execution logs and traces (onLog)' },
	{
		value: 'onNewToken',
		name: 'Tokens',
		description: 'Each token of the answer as the model writes it (onNewToken)',
	},
	{
		value: 'onIntermediateStepUpdate',
		name: 'Steps',
		description: 'Agent reasoning and tool steps (onIntermediateStepUpdate)',
	},
	{
		value: 'onFlowStart',
		name: 'Flow Started',
		description: 'The flow started (onFlowStart, or onFlowRequestStart)',
	},
	{
		value: 'onFlowEnd',
		name: 'Flow Finished',
		description: 'The flow ended (onFlowEnd, or onFlowRequestEnd)',
	},
	{ value: 'onToolStart', name: 'Tool Started', description: 'A tool started (onToolStart)' },
	{ value: 'onToolEnd', name: 'Tool Finished', description: 'A tool finished (onToolEnd)' },
	{
		value: 'onToolError',
		name: 'Tool Error',
		description: 'A tool returned an error (onToolError)',
	},
];

export const EVENT_TAGS = EVENTS.map((event) => event.value);

/**
 * The same events under the names BotDojo's SDK asks for (BotDojoConnector.ts), where the REST
 * pages say onFlowStart/onFlowEnd: both are asked for.
 */
export const SDK_EVENT_TAGS: Record<string, string> = {
	onFlowStart: 'onFlowRequestStart',
	onFlowEnd: 'onFlowRequestEnd',
};

/** Hidden when Run Flow is an AI Agent's tool: the agent, not the tool, writes the chat. */
const NOT_FOR_TOOL = { hide: { '@tool': [true] } };

/**
 * Run Flow's node version 1.1 (a node added today) drops what version 1 keeps for workflows
 * saved with it: the top-level Message Property and Options › Output settings, the `duration`
 * output field (now `durationMs`), and empty lists (n8n's table shows them as "[empty array]").
 */
export const LEGACY_FIELDS_UNTIL = 1.1;

export const optionsProperty: INodeProperties = {
	displayName: 'Options',
	name: 'options',
	type: 'collection',
	placeholder: 'Add Option',
	default: {},
	// Alphabetical, as n8n lists them in Add Option.
	options: [...runOptions(), ...retryAndLimitOptions()].sort((a, b) =>
		a.displayName.localeCompare(b.displayName),
	),
};

function runOptions(): INodeProperties[] {
	return [
		{
			displayName: OPTION_NAMES.concurrency,
			name: 'concurrency',
			type: 'number',
			typeOptions: { minValue: 1, maxValue: 50 },
			default: 1,
			description:
				'How many items run at once. The output keeps the order of the input either way.',
			// An agent calls a tool with one item at a time.
			displayOptions: NOT_FOR_TOOL,
		},
		{
			displayName: 'Evaluation Run Mode',
			name: 'evalRunMode',
			type: 'options',
			options: [
				{
					name: 'Async',
					value: 'async',
					description: 'Evaluations run in a separate job after the run',
				},
				{ name: 'Block', value: 'block', description: 'The run waits for all evaluations' },
				{ name: 'Skip', value: 'skip', description: 'No evaluations run' },
			],
			default: 'async',
			description: 'When the evaluations of the flow run (sent as evalOptions.runMode)',
		},
		{
			displayName: OPTION_NAMES.evalRuns,
			name: 'evalRuns',
			type: 'fixedCollection',
			placeholder: 'Add Evaluation',
			typeOptions: { multipleValues: true },
			default: {},
			description:
				'Evaluations to run (sent as evalOptions.runs). Without any, those marked auto-run run.',
			options: [
				{
					displayName: 'Evaluation',
					name: 'run',
					values: [
						{
							displayName: OPTION_NAMES.flowEvalId,
							name: 'flowEvalId',
							type: 'string',
							default: '',
							placeholder: 'e.g. flow_eval_tone',
							description: 'ID of the evaluation flow',
						},
						{
							displayName: OPTION_NAMES.externalInput,
							name: 'externalInput',
							// A string, not json: n8n marks an empty json field red, and this one is optional.
							type: 'string',
							typeOptions: { rows: 3 },
							default: '',
							placeholder: 'e.g. {"expected": "a polite answer"}',
							description: 'Optional input data for the evaluation setup, as a JSON object',
						},
					],
				},
			],
		},
		{
			displayName: 'Events',
			name: 'events',
			type: 'multiOptions',
			options: EVENTS,
			default: [],
			description:
				'Which events BotDojo streams. None chosen: all of them. Sent only when narrowed; without Tokens the text comes from the final result.',
		},
		{
			displayName: 'Forward Tokens Live',
			name: 'forwardTokens',
			type: 'boolean',
			default: true,
			displayOptions: NOT_FOR_TOOL,
			description:
				'Whether to pass each token on as it arrives when the workflow streams its response (Chat Trigger or Webhook with streaming). The aggregated item is output either way.',
		},
		{
			displayName: OPTION_NAMES.idleTimeout,
			name: 'idleTimeout',
			type: 'number',
			typeOptions: { minValue: 0 },
			default: 60,
			description:
				'Longest pause in a stream before the run is given up (0: no limit). The flow may still finish in BotDojo.',
		},
		{
			displayName: 'Include Events',
			name: 'includeEvents',
			type: 'boolean',
			default: false,
			description: 'Whether to add every streamed event to the raw output (as events)',
		},
		{
			displayName: 'Include Logs',
			name: 'includeLogs',
			type: 'boolean',
			default: false,
			description: 'Whether to add the onLog events of the stream to the output (as logs)',
		},
		{
			displayName: 'Keep Canvas Markup',
			name: 'keepCanvasMarkup',
			type: 'boolean',
			default: false,
			description:
				'Whether the answer keeps canvas markup (&lt;|dojo-canvas|&gt;…&lt;|dojo-canvas|&gt;, or a {"canvasData": …} object) in its text and live tokens. Off: the markup is taken out, and the canvases are output as canvases.',
		},
		{
			displayName: OPTION_NAMES.onFlowError,
			name: 'onFlowError',
			type: 'options',
			options: [
				{
					name: 'Fail the Item',
					value: 'fail',
					description: 'A result with status "error" is an error of the node',
				},
				{
					name: 'Output the Record',
					value: 'output',
					description: 'Output it with status "error" so that the workflow can branch on it',
				},
			],
			default: 'fail',
			description: 'What to do when the flow ran but reported status "error"',
		},
		{
			displayName: OPTION_NAMES.override,
			name: 'override',
			type: 'fixedCollection',
			placeholder: 'Add Property',
			typeOptions: { multipleValues: true },
			default: {},
			description: 'Flow properties to use for this run instead of those saved in the flow',
			options: [
				{
					displayName: 'Property',
					name: 'property',
					values: [
						{
							displayName: OPTION_NAMES.overridePath,
							name: 'path',
							type: 'string',
							default: '',
							placeholder: 'e.g. llm_1.temperature',
							description: 'Node path of the flow, a dot, then the property name',
						},
						{
							displayName: 'Value',
							name: 'value',
							type: 'string',
							default: '',
							placeholder: 'e.g. 0.2',
							description:
								'A JSON object, array, number or boolean is sent as such; any other text as text',
						},
					],
				},
			],
		},
		{
			displayName: 'Streaming',
			name: 'streaming',
			type: 'boolean',
			default: true,
			displayOptions: NOT_FOR_TOOL,
			description:
				'Whether to read the run as a stream of events (tokens, tool calls, steps) rather than wait for the whole result',
		},
		{
			displayName: OPTION_NAMES.timeout,
			name: 'timeout',
			type: 'number',
			typeOptions: { minValue: 0 },
			default: 300,
			description:
				'Longest time for the whole run (0: no limit). When it passes, the flow may still finish in BotDojo.',
		},
		{
			displayName: 'Version',
			name: 'version',
			type: 'string',
			default: '',
			placeholder: 'e.g. 3',
			description: "Release of the flow to run. Empty: the flow's default release.",
		},
	];
}

function retryAndLimitOptions(): INodeProperties[] {
	return [
		{
			displayName: OPTION_NAMES.maxAttempts,
			name: 'maxAttempts',
			type: 'number',
			typeOptions: { minValue: 1, maxValue: 10 },
			default: 4,
			description:
				'Attempts in all when BotDojo answers 429 or 503 (busy: both mean the flow did not run). Other failures are never retried.',
		},
		{
			displayName: OPTION_NAMES.maxRetryWait,
			name: 'maxRetryWait',
			type: 'number',
			typeOptions: { minValue: 0 },
			default: 60,
			description:
				'Longest time, in all, that the retries after a 429 or 503 may wait, Retry-After included',
		},
		{
			displayName: OPTION_NAMES.maxLineMiB,
			name: 'maxLineMiB',
			type: 'number',
			typeOptions: { minValue: 1, maxValue: 1024 },
			default: 16,
			description:
				'Largest single event (one line of the stream) accepted; a larger one is refused rather than held in memory. The final result may be larger by twice the answer, which it carries twice; an answer sent whole may be three times this size.',
		},
		{
			displayName: OPTION_NAMES.messageProperty,
			name: 'messageProperty',
			type: 'string',
			default: 'text_input',
			description:
				"With Input: Message, the input property of the flow's Start node that takes the text (text_input in chat-compatible flows)",
		},
		{
			// Replaced by the top-level Simplify. Shown only on version 1 where a saved workflow
			// chose Raw, so that its choice is kept (n8n drops option values it does not know).
			displayName: 'Output (Old Setting)',
			name: 'output',
			type: 'options',
			displayOptions: { show: { ...beforeVersion(LEGACY_FIELDS_UNTIL), output: ['raw'] } },
			options: [
				{ name: 'Simplified', value: 'simplified', description: 'Use Simplify instead' },
				{ name: 'Raw', value: 'raw', description: 'The whole flow request record' },
			],
			default: 'simplified',
			description: 'Set Simplify instead; while this says Raw, it decides',
		},
	];
}
