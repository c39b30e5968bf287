/**
 * The part of a node description every BotDojo node shares: group, defaults, one main input and
 * output, and the credential. The icon, subtitle and usableAsTool stay literal in each node class
 * (n8n's community-node lint reads them there).
 */
import { NodeConnectionTypes, type INodeTypeDescription } from 'n8n-workflow';

export interface NodeHeader {
	/** Shown after "BotDojo ", e.g. "Query Index". */
	title: string;
	name: string;
	description: string;
	version?: number | number[];
	defaultVersion?: number;
}

export function nodeHeader(
	header: NodeHeader,
): Omit<INodeTypeDescription, 'properties' | 'icon' | 'subtitle' | 'usableAsTool'> {
	const displayName = `BotDojo ${header.title}`;
	return {
		displayName,
		name: header.name,
		group: ['transform'],
		version: header.version ?? 1,
		...(header.defaultVersion !== undefined ? { defaultVersion: header.defaultVersion } : {}),
		description: header.description,
		defaults: { name: displayName },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'botDojoApi', required: true }],
	};
}

/**
 * The text of a parameter in a canvas subtitle (an expression, without `={{ }}`) that reads well
 * when the parameter is empty, an expression or a resource locator (whose text is in `.value`):
 * "flow_echo", "flow" when empty, "(flow from input)" for an expression.
 */
export function subtitleValue(parameter: string, whenUnset: string): string {
	const raw = `$parameter["${parameter}"]`;
	const text = `(${raw} && typeof ${raw} === "object" ? ${raw}.value : ${raw})`;
	return `(!${text} ? "${whenUnset}" : String(${text}).startsWith("=") ? "(${whenUnset} from input)" : ${text})`;
}

/** A canvas subtitle `<verb> <value>`: "Run flow_echo", "Run flow", "Run (flow from input)". */
export function subtitleOf(verb: string, parameter: string, whenUnset: string): string {
	return `={{ "${verb} " + ${subtitleValue(parameter, whenUnset)} }}`;
}
