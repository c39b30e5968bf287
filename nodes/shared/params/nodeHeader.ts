/**
 * The part of a node description every BotDojo node shares: group, defaults, one main input and
 * output (the Trigger sets its own group and no input), and the credential. The icon, subtitle
 * and usableAsTool stay literal in each node class (n8n's community-node lint reads them there).
 */
import { NodeConnectionTypes, type INodeTypeDescription } from 'n8n-workflow';

interface NodeHeader {
	/** Shown after "BotDojo ", e.g. "Query Index". */
	title: string;
	name: string;
	description: string;
	version?: number | number[];
	defaultVersion?: number;
}

export function nodeHeader({
	title,
	version = 1,
	...nameAndDescription
}: NodeHeader): Omit<INodeTypeDescription, 'properties' | 'icon' | 'subtitle' | 'usableAsTool'> {
	const displayName = `BotDojo ${title}`;
	return {
		displayName,
		// name, description and defaultVersion (when given)
		...nameAndDescription,
		group: ['transform'],
		version,
		defaults: { name: displayName },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'botDojoApi', required: true }],
	};
}

/**
 * Canvas subtitles in n8n's own form, `<operation>: <what it acts on>` (n8n's nodes write
 * `$parameter["operation"] + ": " + $parameter["resource"]`), in Title Case: "Run: flow_echo",
 * "Get Status: idx_docs". The id part reads well whatever the parameter holds: nothing when it is
 * empty ("Run"), "Flow ID From Input" for an expression, the text of a resource locator.
 */
function idPart({ parameter, name }: SubtitleId) {
	const raw = `$parameter["${parameter}"]`;
	const text = `(${raw} && typeof ${raw} === "object" ? ${raw}.value : ${raw})`;
	return `(!${text} ? "" : ": " + (String(${text}).startsWith("=") ? "${name} From Input" : ${text}))`;
}

interface SubtitleId {
	/** The parameter holding the id, e.g. `flowId`. */
	parameter: string;
	/** Its display name, e.g. "Flow ID". */
	name: string;
}

/**
 * The subtitle: the chosen operation named as the Operation list does ("Get Many by Metadata:
 * idx_docs"); `operations[0]` is the default, and a node without the list shows it ("Run").
 */
export function operationSubtitle(
	operations: Array<{ option: { name: string; value: string } }>,
	id?: SubtitleId,
) {
	const names = Object.fromEntries(operations.map(({ option }) => [option.value, option.name]));
	const operation = `(${JSON.stringify(names)}[$parameter["operation"]] || "${operations[0].option.name}")`;
	return `={{ ${operation}${id ? ` + ${idPart(id)}` : ''} }}`;
}
