/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals -- test code: runs in jest, never in n8n */
/**
 * Node types for the engine: our nodes (loaded from source, named as n8n names an installed
 * community package) and a small "Items" source node that feeds test items into them.
 */
import * as path from 'node:path';
import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	INodeTypes,
	IVersionedNodeType,
} from 'n8n-workflow';
import { deepCopy, NodeConnectionTypes } from 'n8n-workflow';

import { BotDojoApi } from '../../credentials/BotDojoApi.credentials';

export const PACKAGE = 'n8n-nodes-botdojo';

/** The names of the package's six node types, without the package prefix. */
export const NODE_NAMES = [
	'botDojoRunFlow',
	'botDojoCreateSession',
	'botDojoExportRequests',
	'botDojoUploadDocument',
	'botDojoQueryIndex',
	'botDojoTrigger',
];
const ROOT = path.resolve(__dirname, '../..');

/** `dist/nodes/X/X.node.js` in package.json → the TypeScript source class X. */
function loadSourceNode(distPath: string): INodeType {
	const source = path.join(ROOT, distPath.replace(/^dist\//, '').replace(/\.js$/, '.ts'));
	const className = path.basename(source, '.node.ts');
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const NodeClass = require(source)[className] as new () => INodeType;
	return new NodeClass();
}

/** Emits the items given in its `items` parameter; binary entries are `{ base64, fileName, mimeType }`. */
export class ItemsSource implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Items',
		name: 'items',
		group: ['input'],
		version: 1,
		description: 'Test source',
		usableAsTool: true,
		defaults: { name: 'Items' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		properties: [{ displayName: 'Items', name: 'items', type: 'json', default: '[]' }],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const raw = this.getNodeParameter('items', 0) as string | IDataObject[];
		const items = (typeof raw === 'string' ? JSON.parse(raw) : raw) as Array<{
			json: IDataObject;
			binary?: Record<string, { base64: string; fileName: string; mimeType: string }>;
		}>;
		const out: INodeExecutionData[] = [];
		for (const item of items) {
			const entry: INodeExecutionData = { json: item.json };
			if (item.binary) {
				entry.binary = {};
				for (const [key, file] of Object.entries(item.binary)) {
					entry.binary[key] = await this.helpers.prepareBinaryData(
						Buffer.from(file.base64, 'base64'),
						file.fileName,
						file.mimeType,
					);
				}
			}
			out.push(entry);
		}
		return [out];
	}
}

export class TestNodeTypes implements INodeTypes {
	private readonly loaded = new Map<string, INodeType>();

	private readonly sources: Map<string, string>;

	constructor() {
		// eslint-disable-next-line @typescript-eslint/no-require-imports
		const pkg = require(path.join(ROOT, 'package.json')) as { n8n: { nodes: string[] } };
		this.sources = new Map(
			pkg.n8n.nodes.map((distPath) => {
				const base = path.basename(distPath, '.node.js');
				return [`${PACKAGE}.${base.charAt(0).toLowerCase()}${base.slice(1)}`, distPath];
			}),
		);
		this.loaded.set('test.items', new ItemsSource());
	}

	/** Adds a node type that only tests use (e.g. a sub-node). */
	register(name: string, nodeType: INodeType): void {
		this.loaded.set(name, nodeType);
	}

	getByName(name: string): INodeType | IVersionedNodeType {
		return this.getByNameAndVersion(name);
	}

	getByNameAndVersion(name: string): INodeType {
		let nodeType = this.loaded.get(name);
		if (!nodeType) {
			const source = this.sources.get(name);
			if (!source) throw new Error(`Unknown node type ${name}`);
			nodeType = loadSourceNode(source);
			this.loaded.set(name, nodeType);
		}
		return nodeType;
	}

	getKnownTypes() {
		return {};
	}
}

export const credentialType = new BotDojoApi();

/** The node types every run and poll of a test file resolves against. */
export const nodeTypes = new TestNodeTypes();

/** A node's tool variant as n8n's loader builds it (tool-generation/ai-tools.js): name + "Tool". */
export function toolVariant(name: string): INodeType {
	const original = nodeTypes.getByNameAndVersion(`${PACKAGE}.${name}`);
	const description = deepCopy(original.description);
	description.name += 'Tool';
	description.displayName += ' Tool';
	delete description.usableAsTool;
	return { description, execute: original.execute } as INodeType;
}
