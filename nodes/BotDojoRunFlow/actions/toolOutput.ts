/**
 * What of the answer comes out: Simplify on the node, and Output when Run Flow is an AI Agent
 * tool: n8n's UX guidelines ask a tool for an Output choice of
 * Simplified, Raw or Selected Fields (n8n's own tool nodes show it for `@tool` in place of the
 * Simplify toggle), so the agent reads only what it needs of the answer.
 */
import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { invalidInput, placeOf } from '../../shared/validation';

/** The simplified output's fields (see the Simplify tooltip), alphabetical as n8n lists options. */
const FIELDS = [
	{ name: 'Canvases', value: 'canvases', description: 'The canvases field' },
	{ name: 'Duration', value: 'durationMs', description: 'The durationMs field' },
	{ name: 'Error Message', value: 'errorMessage', description: 'The errorMessage field' },
	{ name: 'Flow Request ID', value: 'flowRequestId', description: 'The flowRequestId field' },
	{ name: 'Flow Session ID', value: 'flowSessionId', description: 'The flowSessionId field' },
	{
		name: 'Intermediate Steps',
		value: 'intermediateSteps',
		description: 'The intermediateSteps field',
	},
	{ name: 'Status', value: 'status', description: 'The status field' },
	{
		name: 'Suggested Questions',
		value: 'suggestedQuestions',
		description: 'The suggestedQuestions field',
	},
	{ name: 'Text', value: 'text', description: 'The text field' },
	{ name: 'Tool Calls', value: 'toolCalls', description: 'The toolCalls field' },
	{ name: 'Version', value: 'version', description: 'The version field' },
];

/** Top-level, as in n8n's AI nodes. Saved workflows with the old Options › Output keep it. */
export const simplifyProperty: INodeProperties = {
	displayName: 'Simplify',
	name: 'simplify',
	type: 'boolean',
	default: true,
	description:
		"Whether to return only text, flowSessionId, flowRequestId, status, durationMs, version, toolCalls and intermediateSteps (the tool calls as n8n's AI Agent lists them), with errorMessage when the flow reported an error, canvases and suggestedQuestions when the answer has them, and logs when Include Logs is on, instead of the whole flow request record. Empty lists are left out, except intermediateSteps where an Evaluation node reads it.",
	// A tool has Output (Simplified, Raw, Selected Fields) instead.
	displayOptions: { hide: { '@tool': [true] } },
};

const TOOL_OUTPUT = 'Output';
const TOOL_FIELDS = 'Fields';

export const toolOutputProperties: INodeProperties[] = [
	{
		displayName: TOOL_OUTPUT,
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
		displayName: TOOL_FIELDS,
		name: 'toolFields',
		type: 'multiOptions',
		options: FIELDS,
		default: ['text'],
		description: 'The fields of the simplified output the AI Agent reads',
		displayOptions: { show: { '@tool': [true], toolOutput: ['selected'] } },
	},
];

export interface ToolOutput {
	/** The tool's Output, when the node runs as a tool: overrides Simplify. */
	simplify?: boolean;
	/** Selected Fields: the fields kept of the simplified output. */
	fields?: string[];
}

/** Reads the tool's Output of an item; nothing when the node is not a tool. */
export function readToolOutput(ctx: IExecuteFunctions, itemIndex: number): ToolOutput {
	const output = ctx.getNodeParameter('toolOutput', itemIndex, '') as string;
	if (!output) return {};
	if (output !== 'selected') return { simplify: output !== 'raw' };
	const chosen = ctx.getNodeParameter('toolFields', itemIndex, []) as unknown;
	const known = FIELDS.map((field) => field.value);
	const fields = Array.isArray(chosen) ? chosen.filter((f) => known.includes(f as string)) : [];
	if (fields.length === 0) {
		throw invalidInput(
			placeOf(ctx, itemIndex),
			TOOL_FIELDS,
			'has no field chosen',
			`Choose at least one field, e.g. Text, or set ${TOOL_OUTPUT} to Simplified.`,
		);
	}
	return { simplify: true, fields: fields as string[] };
}
