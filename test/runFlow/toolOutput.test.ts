/**
 * Run Flow as an AI Agent tool (issue 27 §4): Output › Simplified, Raw or Selected Fields in place
 * of Simplify, as n8n's UX guidelines ask of a tool; the node itself keeps Simplify.
 */
import { NodeHelpers, type INode, type INodeType } from 'n8n-workflow';

import { nodeTypes, runNode } from '../helpers/engine';
import { useEmulator } from '../helpers/emulator';
import { PACKAGE, toolVariant } from '../helpers/nodeTypes';
import { message } from '../helpers/runFlow';

const env = useEmulator();

const TOOL = 'botDojoRunFlowTool';
nodeTypes.register(`${PACKAGE}.${TOOL}`, toolVariant('botDojoRunFlow'));

/** The names of the top-level parameters n8n shows for these parameter values. */
function shownParameters(type: INodeType, parameters: Record<string, unknown>): string[] {
	const node = { typeVersion: 1.1, parameters } as unknown as INode;
	return type.description.properties
		.filter((p) => NodeHelpers.displayParameter(parameters as never, p, node, type.description))
		.map((p) => p.displayName);
}

/** One run of the tool variant (as the AI Agent calls it) of flow_tools. */
async function runTool(parameters: Record<string, unknown>) {
	return await runNode({
		node: {
			type: TOOL,
			typeVersion: 1.1,
			parameters: message('flow_tools', 'weather', parameters as never),
		},
		credentials: env.credentials,
	});
}

describe('BotDojo Run Flow as an AI Agent tool: Output', () => {
	it('the tool shows Output (and Fields for Selected Fields) instead of Simplify; the node keeps Simplify', () => {
		const node = nodeTypes.getByNameAndVersion(`${PACKAGE}.botDojoRunFlow`);
		const tool = nodeTypes.getByNameAndVersion(`${PACKAGE}.${TOOL}`);
		expect(shownParameters(node, {})).toContain('Simplify');
		expect(shownParameters(node, {})).not.toContain('Output');
		expect(shownParameters(tool, { toolOutput: 'simplified' })).not.toContain('Simplify');
		expect(shownParameters(tool, { toolOutput: 'simplified' })).toContain('Output');
		expect(shownParameters(tool, { toolOutput: 'simplified' })).not.toContain('Fields');
		expect(shownParameters(tool, { toolOutput: 'selected' })).toContain('Fields');
		const output = tool.description.properties.find((p) => p.name === 'toolOutput');
		expect(output?.options?.map((o) => (o as { name: string }).name)).toEqual([
			'Raw',
			'Selected Fields',
			'Simplified',
		]);
	});

	it('Simplified gives the simplified output, Raw the whole record', async () => {
		const simplified = await runTool({ toolOutput: 'simplified' });
		expect(simplified.error).toBeUndefined();
		const record = [...env.emu.records.values()][0];
		expect(simplified.items[0].json).toMatchObject({
			text: expect.any(String),
			flowRequestId: record.id,
			status: 'complete',
		});
		expect(simplified.items[0].json).not.toHaveProperty('response');

		const raw = await runTool({ toolOutput: 'raw' });
		expect(raw.error).toBeUndefined();
		expect(raw.items[0].json).toMatchObject({ status: 'complete', response: expect.anything() });
		expect(raw.items[0].json).not.toHaveProperty('text');
	});

	it('Selected Fields gives only the fields chosen', async () => {
		const { items, error } = await runTool({
			toolOutput: 'selected',
			toolFields: ['text', 'toolCalls'],
		});
		expect(error).toBeUndefined();
		expect(Object.keys(items[0].json).sort()).toEqual(['text', 'toolCalls']);
		expect((items[0].json.toolCalls as unknown[]).length).toBe(2);
	});

	it('Selected Fields with none chosen is refused, naming Fields, before any request', async () => {
		const { error } = await runTool({ toolOutput: 'selected', toolFields: [] });
		expect(error?.message).toBe('Fields: has no field chosen');
		expect(env.emu.requestsTo('run')).toHaveLength(0);
	});
});
