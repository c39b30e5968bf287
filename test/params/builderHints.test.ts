/**
 * Hints for n8n's AI Workflow Builder (n8n 2.x `builderHint`): every node says what it is for,
 * and Run Flow's hint about its Memory input says exactly what its inputs do (the builder's
 * validation reads `builderHint.inputs` to require or refuse a Memory sub-node).
 */
import { NodeHelpers, Workflow, type INode, type INodeProperties } from 'n8n-workflow';

import { nodeTypes } from '../helpers/engine';
import { NODE_NAMES, PACKAGE } from '../helpers/nodeTypes';

const runFlow = nodeTypes.getByNameAndVersion(`${PACKAGE}.botDojoRunFlow`);

/** The connection types of Run Flow's inputs as n8n works them out for `sessionMode`. */
function inputsFor(sessionMode: string): string[] {
	const node: INode = {
		id: 'rf',
		name: 'Run Flow',
		type: `${PACKAGE}.botDojoRunFlow`,
		typeVersion: 1.1,
		position: [0, 0],
		parameters: { sessionMode },
	};
	const workflow = new Workflow({ nodes: [node], connections: {}, active: false, nodeTypes });
	return NodeHelpers.getNodeInputs(workflow, node, runFlow.description).map((input) =>
		typeof input === 'string' ? input : input.type,
	);
}

describe('AI Workflow Builder hints', () => {
	it.each(NODE_NAMES)('%s says what it is for', (name) => {
		const { builderHint } = nodeTypes.getByNameAndVersion(`${PACKAGE}.${name}`).description;
		expect(builderHint?.searchHint?.length).toBeGreaterThan(40);
	});

	it.each(['new', 'continue', 'remember', 'memory'])(
		'Run Flow with Session %s: the hint requires a Memory exactly when the node has that input',
		(sessionMode) => {
			const memory = runFlow.description.builderHint?.inputs?.ai_memory;
			expect(memory?.required).toBe(true);
			const hinted = NodeHelpers.displayParameter(
				{ sessionMode },
				{ displayOptions: memory?.displayOptions } as INodeProperties,
				{ typeVersion: 1.1, parameters: { sessionMode } } as unknown as INode,
				runFlow.description,
			);
			expect(hinted).toBe(inputsFor(sessionMode).includes('ai_memory'));
		},
	);

	it("Run Flow's message and session key point at the Chat Trigger's fields", () => {
		const hintOf = (name: string) =>
			runFlow.description.properties.find((p) => p.name === name && p.builderHint)?.builderHint
				?.propertyHint;
		expect(hintOf('message')).toContain('expr($json.chatInput)');
		expect(hintOf('sessionKey')).toContain('expr($json.sessionId)');
		expect(hintOf('sessionMode')).toMatch(/memory only with a Redis or Postgres Chat Memory/);
	});
});
