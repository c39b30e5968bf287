/**
 * The old Flow ID parameter (a plain string). New code uses ../params/flowId (a resource locator
 * whose reader also reads these plain strings); this file goes when no node imports it.
 */
import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { requireText, type InputPlace } from './validation';

const FLOW_ID_HELP =
	"Enter the ID of a flow of this project (shown in the flow's address and on its API tab).";

export function flowIdProperty(
	description: string,
	placeholder = 'e.g. flow_echo',
): INodeProperties {
	return {
		displayName: 'Flow ID',
		name: 'flowId',
		type: 'string',
		default: '',
		required: true,
		placeholder,
		description,
	};
}

/** The Flow ID, trimmed; an empty one is an input error. `moreHelp` is added to the help. */
export function requireFlowId(place: InputPlace, value: unknown, moreHelp?: string): string {
	const help = moreHelp ? `${FLOW_ID_HELP} ${moreHelp}` : FLOW_ID_HELP;
	return requireText(place, 'Flow ID', value, help);
}

/** The Flow ID of one item of a programmatic node. */
export function readFlowId(ctx: IExecuteFunctions, itemIndex: number, moreHelp?: string): string {
	const value = ctx.getNodeParameter('flowId', itemIndex, '');
	return requireFlowId({ node: ctx.getNode(), itemIndex }, value, moreHelp);
}
