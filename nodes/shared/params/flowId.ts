/**
 * The Flow ID parameter of every node that works on one flow: a resource locator with two modes,
 * By ID and From URL (the id is taken from a pasted BotDojo flow address). Workflows saved when
 * the parameter was a plain string keep working: readFlowId reads both.
 */
import type {
	IExecuteFunctions,
	INodeParameterResourceLocator,
	INodeProperties,
} from 'n8n-workflow';

import { invalidInput, requireText, type InputPlace } from '../validation';

const FLOW_ID_HELP =
	"Enter the ID of a flow of this project (shown in the flow's address and on its API tab).";

/** `…/flows/<id>` (or `…/flow/<id>`) anywhere in an http(s) address; the id is group 1. */
export const FLOW_URL_PATTERN = '^\\s*https?://[^\\s]*?/flows?/([^/?#\\s]+)';
const FLOW_URL_EXAMPLE = 'https://app.botdojo.com/acc_demo/projects/proj_demo/flows/flow_echo';

export function flowIdProperty(
	description: string,
	placeholder = 'e.g. flow_echo',
): INodeProperties {
	return {
		displayName: 'Flow ID',
		name: 'flowId',
		type: 'resourceLocator',
		default: { mode: 'id', value: '' },
		required: true,
		description,
		// Both modes are checked when the node runs (requireFlowId), not with n8n's `validation`
		// regexes: n8n runs those in a sandbox with a time limit that a busy machine can exceed.
		modes: [
			{
				displayName: 'By ID',
				name: 'id',
				type: 'string',
				placeholder,
			},
			{
				displayName: 'From URL',
				name: 'url',
				type: 'string',
				placeholder: `e.g. ${FLOW_URL_EXAMPLE}`,
			},
		],
	};
}

function isResourceLocator(value: unknown): value is INodeParameterResourceLocator {
	return value !== null && typeof value === 'object' && 'mode' in value && 'value' in value;
}

/** The id in a pasted flow address, or undefined when the text is not one. */
export function flowIdFromUrl(text: string): string | undefined {
	const match = new RegExp(FLOW_URL_PATTERN, 'i').exec(text);
	return match ? decodeURIComponent(match[1]) : undefined;
}

/**
 * The Flow ID, trimmed, from a plain string (workflows saved before the resource locator) or
 * either mode of the locator. An empty or unreadable one is an input error.
 */
export function requireFlowId(place: InputPlace, value: unknown, moreHelp?: string): string {
	const help = moreHelp ? `${FLOW_ID_HELP} ${moreHelp}` : FLOW_ID_HELP;
	if (!isResourceLocator(value)) return requireText(place, 'Flow ID', value, help);
	if (value.mode === 'url') {
		const text = requireText(place, 'Flow ID (From URL)', value.value, help);
		const id = flowIdFromUrl(text);
		if (id === undefined) {
			throw invalidInput(
				place,
				'Flow ID (From URL)',
				`"${text}" is not the address of a flow`,
				`Paste the address of the flow as the browser shows it, e.g. ${FLOW_URL_EXAMPLE}, or choose By ID. ${moreHelp ?? ''}`.trim(),
			);
		}
		return id;
	}
	const id = requireText(place, 'Flow ID', value.value, help);
	if (/[\s/]/.test(id)) {
		throw invalidInput(
			place,
			'Flow ID',
			`"${id}" is not a flow ID (it has spaces or slashes)`,
			`${help} To paste the flow's address, choose From URL.`,
		);
	}
	return id;
}

/** The Flow ID of one item of a programmatic node. */
export function readFlowId(ctx: IExecuteFunctions, itemIndex: number, moreHelp?: string): string {
	const value = ctx.getNodeParameter('flowId', itemIndex, '');
	return requireFlowId({ node: ctx.getNode(), itemIndex }, value, moreHelp);
}
