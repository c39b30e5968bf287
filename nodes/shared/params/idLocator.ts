/**
 * The ID parameters (Flow ID, Index ID) as n8n's resource locator: By ID, and By URL where
 * BotDojo's pages have an address that carries the id (a flow's; neither the API spec nor the
 * facts about BotDojo give the address of an index page, and guessing one would refuse real
 * addresses). Workflows saved when the parameter was a plain string keep working:
 * requireLocatorId reads both.
 */
import type {
	IExecuteFunctions,
	INodeParameterResourceLocator,
	INodeProperties,
} from 'n8n-workflow';

import { invalidInput, placeOf, requireText, type InputPlace } from '../validation';

export interface IdLocator {
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

function isResourceLocator(value: unknown): value is INodeParameterResourceLocator {
	return value !== null && typeof value === 'object' && 'mode' in value && 'value' in value;
}

/**
 * The longest id sent. BotDojo's ids are short (e.g. 20-character document ids, 36-character
 * UUIDs); 256 leaves room for any of them, and keeps the request line far below the 8 KiB that
 * proxies commonly allow, which a longer id would exceed with a 431/414 that says nothing.
 */
const MAX_ID_CHARS = 256;

/** The id in a pasted address, or undefined when the text is not one of its kind; null when
 *  its `%` escapes are malformed. */
function idFromUrl(locator: IdLocator, text: string): string | null | undefined {
	if (!locator.url) return undefined;
	const match = new RegExp(locator.url.pattern, 'i').exec(text);
	if (!match) return undefined;
	try {
		return decodeURIComponent(match[1]);
	} catch {
		return null;
	}
}

/** An id that would change the request's path (`.`, `..`) or its size is refused before sending. */
function checkedId(place: InputPlace, label: string, id: string, help: string): string {
	if (id === '.' || id === '..') {
		throw invalidInput(place, label, `"${id}" is not an id`, help);
	}
	if (id.length > MAX_ID_CHARS) {
		throw invalidInput(
			place,
			label,
			`is ${id.length} characters long; ids have at most ${MAX_ID_CHARS}`,
			help,
		);
	}
	return id;
}

/**
 * The id, trimmed, from a plain string (a workflow saved before the resource locator) or from
 * either mode of the locator. An empty or unreadable one is an input error naming the
 * parameter and the item. `moreHelp` is added to every error's help.
 */
export function requireLocatorId(
	place: InputPlace,
	locator: IdLocator,
	value: unknown,
	moreHelp?: string,
): string {
	const { displayName } = locator;
	const help = moreHelp ? `${locator.help} ${moreHelp}` : locator.help;
	if (!isResourceLocator(value)) {
		return checkedId(place, displayName, requireText(place, displayName, value, help), help);
	}
	if (value.mode === 'url' && locator.url) {
		const label = `${displayName} (By URL)`;
		const text = requireText(place, label, value.value, help);
		const id = idFromUrl(locator, text);
		if (id === null) {
			throw invalidInput(
				place,
				label,
				`"${text.slice(0, 200)}" has a malformed % escape`,
				`Paste the address as the browser shows it (each % followed by two hex digits, e.g. %20), or choose By ID.`,
			);
		}
		if (id === undefined) {
			throw invalidInput(
				place,
				label,
				`"${text}" is not the address of ${locator.url.of}`,
				`Paste the address of ${locator.url.of} as the browser shows it, e.g. ${locator.url.example}, or choose By ID. ${moreHelp ?? ''}`.trim(),
			);
		}
		return checkedId(place, label, id, help);
	}
	const id = checkedId(
		place,
		displayName,
		requireText(place, displayName, value.value, help),
		help,
	);
	if (/[\s/]/.test(id)) {
		const byUrl = locator.url ? ' To paste an address, choose By URL.' : '';
		throw invalidInput(
			place,
			displayName,
			`"${id}" is not ${locator.inSentence} (it has spaces or slashes)`,
			`${help}${byUrl}`,
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
): string {
	const value = ctx.getNodeParameter(locator.name, itemIndex, '');
	return requireLocatorId(placeOf(ctx, itemIndex), locator, value, moreHelp);
}

export const flowIdProperty = (description: string, placeholder?: string) =>
	idLocatorProperty(FLOW_ID, description, placeholder);

/** The Flow ID of one item (Run Flow adds that nothing was sent to its help). */
export const readFlowId = (ctx: IExecuteFunctions, itemIndex: number, moreHelp?: string) =>
	readLocatorId(ctx, FLOW_ID, itemIndex, moreHelp);
