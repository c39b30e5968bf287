/**
 * Run Flow 1.1 (a node added today) against version 1 (workflows saved before): the settings and
 * output fields version 1 keeps for its saved workflows are not on a new node, and saved
 * workflows keep them.
 */
import { NodeHelpers, type INode, type INodeParameters } from 'n8n-workflow';

import { BotDojoRunFlow } from '../../nodes/BotDojoRunFlow/BotDojoRunFlow.node';
import { useEmulator } from '../helpers/emulator';
import { message, runBodies, runFlow } from '../helpers/runFlow';

const env = useEmulator();
const { description } = new BotDojoRunFlow();

/** The parameters n8n's editor shows for a node of `typeVersion` holding `parameters`. */
function shownParameters(typeVersion: number, parameters: INodeParameters): string[] {
	const node = { typeVersion, parameters } as unknown as INode;
	const values = NodeHelpers.getNodeParameters(
		description.properties,
		parameters,
		true,
		false,
		node,
		description,
	)!;
	return description.properties
		.filter((p) => NodeHelpers.displayParameter(values, p, node, description))
		.map((p) => p.displayName);
}

/** The options n8n's Add Option list offers on a node of `typeVersion`. */
function offeredOptions(typeVersion: number, options: INodeParameters = {}): string[] {
	const node = { typeVersion, parameters: { options } } as unknown as INode;
	const collection = description.properties.find((p) => p.name === 'options')!;
	return (collection.options as Array<{ displayName: string; displayOptions?: object }>)
		.filter((o) => NodeHelpers.displayParameter(options, o as never, node, description))
		.map((o) => o.displayName);
}

describe('Run Flow node versions', () => {
	it('a new node is version 1.1; workflows saved at version 1 still load', () => {
		expect(description.version).toEqual([1, 1.1]);
	});

	it('a new node shows no old setting, whatever it holds', () => {
		for (const parameters of [
			{ inputMode: 'message' },
			{ inputMode: 'message', messageProperty: '' },
			{ inputMode: 'message', messageProperty: 'question' },
		]) {
			const shown = shownParameters(1.1, parameters);
			expect(shown).toContain('Message');
			expect(shown.filter((name) => /Old Setting/.test(name))).toEqual([]);
		}
		expect(offeredOptions(1.1, { output: 'raw' })).not.toContain('Output (Old Setting)');
	});

	it('a saved version 1 node shows its old settings where they hold a choice', () => {
		expect(shownParameters(1, { inputMode: 'message', messageProperty: 'question' })).toContain(
			'Message Property (Old Setting)',
		);
		expect(offeredOptions(1, { output: 'raw' })).toContain('Output (Old Setting)');
	});

	it('option names are short enough to read whole in the panel', () => {
		const names = offeredOptions(1.1);
		expect(names).toContain('Attempts When Busy');
		// n8n's panel cut "Advanced: Attempts When Bu…" (26 characters) at its usual width;
		// "Idle Timeout (Seconds)" (22) reads whole there (docs/screenshots/runflow-options-added.png).
		for (const name of names) expect(name.length).toBeLessThanOrEqual(22);
		expect(names).toEqual([...names].sort((a, b) => a.localeCompare(b)));
	});

	it('a new node keeps toolCalls when the flow called tools', async () => {
		const { items } = await runFlow(env, {
			typeVersion: 1.1,
			parameters: message('flow_tools', 'weather'),
		});
		expect(items[0].json).not.toHaveProperty('duration');
		expect((items[0].json.toolCalls as unknown[]).length).toBe(2);
	});

	it('a saved version 1 node keeps duration, toolCalls: [] and its old Message Property', async () => {
		const { items } = await runFlow(env, {
			typeVersion: 1,
			parameters: message('flow_echo', 'Hi', { messageProperty: 'question' }),
		});
		const record = [...env.emu.records.values()][0];
		expect(items[0].json).toMatchObject({ duration: record.duration, toolCalls: [] });
		expect(runBodies(env)[0].body).toEqual({ question: 'Hi' });
	});
});
