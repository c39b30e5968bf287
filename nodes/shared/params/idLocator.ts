/**
 * The ID parameters (Flow ID, Index ID) as n8n's resource locator: By ID, and By URL where
 * BotDojo's pages have an address that carries the id (a flow's; neither the API spec nor the
 * facts about BotDojo give the address of an index page, and guessing one would refuse real
 * addresses). Workflows saved when the parameter was a plain string keep working:
 * requireLocatorId reads both.
 */
import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { invalidInput, placeOf, requireText, type InputPlace } from '../validation';

interface IdLocator {
	/** e.g. "Flow ID" */
	displayName: string;
	/** The id in a sentence, e.g. "a flow ID". */
	inSentence: string;
	/** The parameter's name, unchanged from the plain-string parameter it replaced. */
	name: string;
	/** What to enter, e.g. "Enter the ID of a flow of this project (…)." */
	help: string;
	placeholder: string;
	/** Only when BotDojo pages have a known address shape: how to find the id in one. */
	url?: {
		/** Group 1 is the id. */
		pattern: string;
		example: string;
		/** What the address is of, e.g. "a flow". */
		of: string;
	};
}

export const FLOW_ID: IdLocator = {
	displayName: 'Flow ID',
	inSentence: 'a flow ID',
	name: 'flowId',
	help: "Enter the ID of a flow of this project (shown in the flow's address and on its API tab).",
	placeholder: 'e.g. flow_echo',
	url: {
		// `…/flows/<id>` (or `…/flow/<id>`) anywhere in an http(s) address.
		pattern: '^\\s*https?://[^\\s]*?/flows?/([^/?#\\s]+)',
		example: 'https://app.botdojo.com/acc_demo/projects/proj_demo/flows/flow_echo',
		of: 'a flow',
	},
};

export const INDEX_ID: IdLocator = {
	displayName: 'Index ID',
	inSentence: 'an index ID',
	name: 'indexId',
	help: 'Enter the ID of an index of this project, e.g. idx_docs.',
	placeholder: 'e.g. idx_docs',
};

export function idLocatorProperty(
	locator: IdLocator,
	description: string,
	placeholder = locator.placeholder,
): INodeProperties {
	return {
		displayName: locator.displayName,
		name: locator.name,
		type: 'resourceLocator',
		default: { mode: 'id', value: '' },
		required: true,
		description,
		// Both modes are checked when the node runs (requireLocatorId), not with n8n's `validation`
		// regexes: n8n runs those in a sandbox with a time limit that a busy machine can exceed.
		modes: [
			{ displayName: 'By ID', name: 'id', type: 'string', placeholder },
			...(locator.url
				? [
						{
							displayName: 'By URL',
							name: 'url',
							type: 'string' as const,
							placeholder: `e.g. ${locator.url.example}`,
						},
					]
				: []),
		],
	};
}

/**
 * The longest id sent. BotDojo's ids are short (e.g. 20-character document ids, 36-character
 * UUIDs); 256 leaves room for any of them, and keeps the request line far below the 8 KiB that
 * proxies commonly allow, which a longer id would exceed with a 431/414 that says nothing.
 */
const MAX_ID_CHARS = 256;

/**
 * The id, trimmed, from a plain string (a workflow saved before the resource locator) or from
 * either mode of the locator. An empty or unreadable one, or one that would change the
 * request's path (`.`, `..`) or its size, is an input error naming the parameter and the item.
 * `moreHelp` is added to every error's help.
 */
export function requireLocatorId(
	place: InputPlace,
	locator: IdLocator,
	value: unknown,
	moreHelp?: string,
) {
	const { displayName, url } = locator;
	const help = moreHelp ? `${locator.help} ${moreHelp}` : locator.help;
	const isLocator =
		value !== null && typeof value === 'object' && 'mode' in value && 'value' in value;
	const byUrl = isLocator && value.mode === 'url' ? url : undefined;
	const label = byUrl ? `${displayName} (By URL)` : displayName;
	const refuse = (problem: string, valid = help) => invalidInput(place, label, problem, valid);
	let id = requireText(place, label, isLocator ? value.value : value, help);
	if (byUrl) {
		const match = new RegExp(byUrl.pattern, 'i').exec(id);
		if (!match) {
			throw refuse(
				`"${id}" is not the address of ${byUrl.of}`,
				`Paste the address of ${byUrl.of} as the browser shows it, e.g. ${byUrl.example}, or choose By ID. ${moreHelp ?? ''}`.trim(),
			);
		}
		try {
			id = decodeURIComponent(match[1]);
		} catch {
			throw refuse(
				`"${id.slice(0, 200)}" has a malformed % escape`,
				`Paste the address as the browser shows it (each % followed by two hex digits, e.g. %20), or choose By ID.`,
			);
		}
	}
	if (id === '.' || id === '..') throw refuse(`"${id}" is not an id`);
	if (id.length > MAX_ID_CHARS) {
		throw refuse(`is ${id.length} characters long; ids have at most ${MAX_ID_CHARS}`);
	}
	if (isLocator && !byUrl && /[\s/]/.test(id)) {
		throw refuse(
			`"${id}" is not ${locator.inSentence} (it has spaces or slashes)`,
			url ? `${help} To paste an address, choose By URL.` : help,
		);
	}
	return id;
}

/** The id of one item of a programmatic node; `moreHelp` is added to every error's help. */
export function readLocatorId(
	ctx: IExecuteFunctions,
	locator: IdLocator,
	itemIndex: number,
	moreHelp?: string,
) {
	return requireLocatorId(
		placeOf(ctx, itemIndex),
		locator,
		ctx.getNodeParameter(locator.name, itemIndex, ''),
		moreHelp,
	);
}

export const flowIdProperty = (description: string, placeholder?: string) =>
	idLocatorProperty(FLOW_ID, description, placeholder);

/** The Flow ID of one item (Run Flow adds that nothing was sent to its help). */
export const readFlowId = (ctx: IExecuteFunctions, itemIndex: number, moreHelp?: string) =>
	readLocatorId(ctx, FLOW_ID, itemIndex, moreHelp);
