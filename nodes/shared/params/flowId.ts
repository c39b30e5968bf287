/**
 * The Flow ID parameter of every node that works on one flow: a resource locator with two modes,
 * By ID and By URL (the id is taken from a pasted BotDojo flow address). Workflows saved when
 * the parameter was a plain string keep working.
 */
import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { type InputPlace, placeOf } from '../validation';
import { idLocatorProperty, requireLocatorId, type IdLocator } from './idLocator';

const FLOW_ID: IdLocator = {
	displayName: 'Flow ID',
	inSentence: 'a flow ID',
	name: 'flowId',
	help: "Enter the ID of a flow of this project (shown in the flow's address and on its API tab).",
	url: {
		// `…/flows/<id>` (or `…/flow/<id>`) anywhere in an http(s) address.
		pattern: '^\\s*https?://[^\\s]*?/flows?/([^/?#\\s]+)',
		example: 'https://app.botdojo.com/acc_demo/projects/proj_demo/flows/flow_echo',
		of: 'a flow',
	},
};

export function flowIdProperty(
	description: string,
	placeholder = 'e.g. flow_echo',
): INodeProperties {
	return idLocatorProperty(FLOW_ID, description, placeholder);
}

/** The Flow ID from a plain string or either locator mode; `moreHelp` is added to the help. */
export function requireFlowId(place: InputPlace, value: unknown, moreHelp?: string): string {
	return requireLocatorId(place, FLOW_ID, value, moreHelp);
}

/** The Flow ID of one item of a programmatic node. */
export function readFlowId(ctx: IExecuteFunctions, itemIndex: number, moreHelp?: string): string {
	const value = ctx.getNodeParameter('flowId', itemIndex, '');
	return requireFlowId(placeOf(ctx, itemIndex), value, moreHelp);
}
