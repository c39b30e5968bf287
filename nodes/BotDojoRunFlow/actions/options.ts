/**
 * The Options collection: what is sent in the run's `options`, how the answer is read and
 * shaped, timeouts, retries and concurrency; and their reading, every value checked before any
 * request (only the options the user set are sent).
 */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { beforeVersion } from '../../shared/params/simplify';
import {
	invalidInput,
	JSON_OR_TEXT_HELP,
	jsonOrText,
	parseJsonObject,
	requireText,
	type InputPlace,
	placeOf,
} from '../../shared/validation';
import { evaluationReadsSteps } from '../helpers/output';
import { OPTION_NAMES, type RunOptions } from '../helpers/runOptions';

/** Appended to input errors: they are raised before any request, so running again is safe. */
export const NOTHING_SENT = 'Nothing was sent to BotDojo, so it is safe to fix this and run again.';

/**
 * The flow's start and end under the names BotDojo's SDK asks for (BotDojoConnector.ts), where
 * the REST pages say onFlowStart/onFlowEnd: both are asked for.
 */
const SDK_EVENT_TAGS: Record<string, string> = {
	onFlowStart: 'onFlowRequestStart',
	onFlowEnd: 'onFlowRequestEnd',
};

/** The events BotDojo can stream, in the order they are sent when narrowed. */
const EVENTS = [
	['onLog', 'Logs', 'Execution logs and traces'],
	['onNewToken', 'Tokens', 'Each token of the answer as the model writes it'],
	['onIntermediateStepUpdate', 'Steps', 'Agent reasoning and tool steps'],
	['onFlowStart', 'Flow Started', 'The flow started'],
	['onFlowEnd', 'Flow Finished', 'The flow ended'],
	['onToolStart', 'Tool Started', 'A tool started'],
	['onToolEnd', 'Tool Finished', 'A tool finished'],
	['onToolError', 'Tool Error', 'A tool returned an error'],
].map(([value, name, what]) => {
	const tags = SDK_EVENT_TAGS[value] ? `${value}, or ${SDK_EVENT_TAGS[value]}` : value;
	return { value, name, description: `${what} (${tags})` };
});

/** A number option, named as its input errors name it. */
const numberOption = (
	name: keyof typeof OPTION_NAMES,
	typeOptions: INodeProperties['typeOptions'],
	value: number,
	description: string,
): INodeProperties => ({
	displayName: OPTION_NAMES[name],
	name,
	type: 'number',
	typeOptions,
	default: value,
	description,
});

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
	// Alphabetical by display name, as n8n lists them in Add Option.
	options: [
		numberOption(
			'maxAttempts',
			{ minValue: 1, maxValue: 10 },
			4,
			'Attempts in all when BotDojo answers 429 or 503 (busy: both mean the flow did not run). Other failures are never retried.',
		),
		{
			...numberOption(
				'concurrency',
				{ minValue: 1, maxValue: 50 },
				1,
				'How many items run at once. The output keeps the order of the input either way.',
			),
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
		numberOption(
			'idleTimeout',
			{ minValue: 0 },
			60,
			'Longest pause in a stream before the run is given up (0: no limit). The flow may still finish in BotDojo.',
		),
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
		numberOption(
			'maxLineMiB',
			{ minValue: 1, maxValue: 1024 },
			16,
			'Largest single event (one line of the stream) accepted; a larger one is refused rather than held in memory. The final result may be larger by twice the answer, which it carries twice; an answer sent whole may be three times this size.',
		),
		{
			displayName: OPTION_NAMES.messageProperty,
			name: 'messageProperty',
			type: 'string',
			default: 'text_input',
			description:
				"With Input: Message, the input property of the flow's Start node that takes the text (text_input in chat-compatible flows)",
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
		numberOption(
			'maxRetryWait',
			{ minValue: 0 },
			60,
			'Longest time, in all, that the retries after a 429 or 503 may wait, Retry-After included',
		),
		{
			displayName: 'Streaming',
			name: 'streaming',
			type: 'boolean',
			default: true,
			displayOptions: NOT_FOR_TOOL,
			description:
				'Whether to read the run as a stream of events (tokens, tool calls, steps) rather than wait for the whole result',
		},
		numberOption(
			'timeout',
			{ minValue: 0 },
			300,
			'Longest time for the whole run (0: no limit). When it passes, the flow may still finish in BotDojo.',
		),
		{
			displayName: 'Version',
			name: 'version',
			type: 'string',
			default: '',
			placeholder: 'e.g. 3',
			description: "Release of the flow to run. Empty: the flow's default release.",
		},
	],
};

interface EvalRunValues {
	flowEvalId?: string;
	externalInput?: unknown;
}

interface OptionValues {
	version?: string;
	override?: { property?: Array<{ path?: string; value?: unknown }> };
	evalRunMode?: string;
	evalRuns?: { run?: EvalRunValues[] };
	streaming?: boolean;
	events?: string[];
	output?: 'simplified' | 'raw';
	includeEvents?: boolean;
	includeLogs?: boolean;
	timeout?: number;
	idleTimeout?: number;
	onFlowError?: 'fail' | 'output';
	forwardTokens?: boolean;
	keepCanvasMarkup?: boolean;
	maxAttempts?: number;
	maxRetryWait?: number;
	maxLineMiB?: number;
	concurrency?: number;
}

/** The longest time a Node.js timer can wait, in whole seconds (2^31-1 ms: about 24.8 days). */
const LONGEST_SECONDS = Math.floor((2 ** 31 - 1) / 1000);

function seconds(place: InputPlace, parameter: string, value: unknown, fallback: number) {
	const number = value === undefined || value === '' ? fallback : Number(value);
	if (!Number.isFinite(number) || number < 0 || number > LONGEST_SECONDS) {
		throw invalidInput(
			place,
			`Options › ${parameter}`,
			`must be a number of seconds from 0 to ${LONGEST_SECONDS} (about 24 days), but is ${JSON.stringify(value)}`,
			`Enter e.g. ${fallback}. ${NOTHING_SENT}`,
		);
	}
	return Math.round(number * 1000);
}

/**
 * Reads the options of one item and checks them; nothing is sent before this passed. `shape` is
 * what Simplify (or a tool's Output) says; an old saved Options › Output still decides.
 */
export function readRunOptions(
	ctx: IExecuteFunctions,
	itemIndex: number,
	shape: Pick<RunOptions, 'simplify' | 'fields'>,
): RunOptions {
	const place = placeOf(ctx, itemIndex);
	const values = ctx.getNodeParameter('options', itemIndex, {}) as OptionValues;
	const streaming = values.streaming ?? true;
	const request: IDataObject = { stream: streaming ? 'http' : 'none' };
	// None chosen means all (so nothing is sent), as does every one chosen.
	const events = streaming && Array.isArray(values.events) ? values.events : [];
	if (events.length > 0 && events.length !== EVENTS.length) {
		request.stream_events = EVENTS.filter(({ value }) => events.includes(value)).flatMap(
			({ value }) => [value, SDK_EVENT_TAGS[value]].filter(Boolean),
		);
	}
	if (typeof values.version === 'string' ? values.version.trim() : values.version) {
		request.version = String(values.version).trim();
	}
	const overrides = values.override?.property ?? [];
	// No prototype: a path "__proto__" stays a key of what is sent.
	const override = Object.create(null) as IDataObject;
	if (overrides.length > 0) request.override = override;
	overrides.forEach((property, index) => {
		const path = requireText(
			place,
			`Options › ${OPTION_NAMES.override} › property ${index + 1} › ${OPTION_NAMES.overridePath}`,
			property.path,
			`Give the node path and the property name, e.g. llm_1.temperature. ${NOTHING_SENT}`,
		);
		override[path] = jsonOrText(
			place,
			`Options › ${OPTION_NAMES.override} › "${path}"`,
			property.value,
			`${JSON_OR_TEXT_HELP} ${NOTHING_SENT}`,
		) as IDataObject[string];
	});
	const runs = values.evalRuns?.run ?? [];
	if (values.evalRunMode !== undefined || runs.length > 0) {
		const evalOptions: IDataObject = { runMode: values.evalRunMode ?? 'async' };
		if (runs.length > 0) evalOptions.runs = runs.map((run, i) => readEvalRun(place, run, i));
		request.evalOptions = evalOptions;
	}
	return {
		request,
		streaming,
		simplify: values.output !== undefined ? values.output === 'simplified' : shape.simplify,
		fields: shape.fields,
		legacyOutput: ctx.getNode().typeVersion < LEGACY_FIELDS_UNTIL,
		keepEmptySteps: evaluationReadsSteps(ctx),
		includeEvents: values.includeEvents ?? false,
		includeLogs: values.includeLogs ?? false,
		timeoutMs: seconds(place, OPTION_NAMES.timeout, values.timeout, 300),
		idleTimeoutMs: seconds(place, OPTION_NAMES.idleTimeout, values.idleTimeout, 60),
		onFlowError: values.onFlowError ?? 'fail',
		forwardTokens: values.forwardTokens ?? true,
		keepCanvasMarkup: values.keepCanvasMarkup ?? false,
		retry: {
			maxAttempts: Math.max(1, Math.floor(Number(values.maxAttempts ?? 4)) || 1),
			maxTotalWaitMs: seconds(place, OPTION_NAMES.maxRetryWait, values.maxRetryWait, 60),
		},
		maxLineChars: Math.max(1, Number(values.maxLineMiB ?? 16) || 16) * 1024 * 1024,
	};
}

/** The Concurrency option (one value for the whole node, read from the first item). */
export function readConcurrency(this: IExecuteFunctions) {
	const value = this.getNodeParameter('options.concurrency', 0, 1);
	return Math.min(50, Math.max(1, Math.floor(Number(value)) || 1));
}

function readEvalRun(place: InputPlace, run: EvalRunValues, index: number) {
	const label = `Options › ${OPTION_NAMES.evalRuns} › evaluation ${index + 1}`;
	const entry: IDataObject = {
		flowEvalId: requireText(
			place,
			`${label} › ${OPTION_NAMES.flowEvalId}`,
			run.flowEvalId,
			`Enter the flow ID of the evaluation. ${NOTHING_SENT}`,
		),
	};
	const input = run.externalInput;
	if (input !== undefined && input !== null && input !== '') {
		entry.flowEvalExternalInput = parseJsonObject(
			place,
			`${label} › ${OPTION_NAMES.externalInput}`,
			input,
			`Give a JSON object, e.g. {"expected": "a polite answer"}, or leave it empty. ${NOTHING_SENT}`,
		);
	}
	return entry;
}
