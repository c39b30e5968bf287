/**
 * Run Flow's Message Property moved to Options › Message Property. A workflow saved
 * with the old top-level setting keeps it (the parameter stays, shown only while it holds
 * another name than text_input).
 */
import { NodeHelpers, type INode } from 'n8n-workflow';

import { BotDojoRunFlow } from '../../nodes/BotDojoRunFlow/BotDojoRunFlow.node';
import { useEmulator } from '../helpers/emulator';
import { runBodies, runFlow } from '../helpers/runFlow';

const env = useEmulator();

const base = { flowId: 'flow_echo', inputMode: 'message', message: 'Hi' };

describe('Run Flow: Message Property', () => {
	it.each([
		['nothing set', {}, { text_input: 'Hi' }],
		['the option', { options: { messageProperty: 'question' } }, { question: 'Hi' }],
		[
			'the old top-level setting (a saved workflow)',
			{ messageProperty: 'question' },
			{ question: 'Hi' },
		],
		[
			'both: the option wins',
			{ messageProperty: 'old', options: { messageProperty: 'question' } },
			{ question: 'Hi' },
		],
	])('sends the message under %s', async (_case, parameters, body) => {
		const { error } = await runFlow(env, { parameters: { ...base, ...parameters } });
		expect(error).toBeUndefined();
		expect(runBodies(env)[0].body).toEqual(body);
	});

	it('shows the old top-level setting only where a saved workflow holds another name', () => {
		const { description } = new BotDojoRunFlow();
		const old = description.properties.find((p) => p.name === 'messageProperty');
		const node = { typeVersion: 1, parameters: {} } as unknown as INode;
		const shown = (messageProperty: string) =>
			NodeHelpers.displayParameter(
				{ inputMode: 'message', messageProperty },
				old!,
				node,
				description,
			);
		expect(shown('text_input')).toBe(false);
		expect(shown('question')).toBe(true);
	});

	it('refuses an empty option before any request, naming it', async () => {
		const { error } = await runFlow(env, {
			parameters: { ...base, options: { messageProperty: ' ' } },
		});
		expect(error?.message).toMatch(/^Options › Message Property: is empty/);
		expect(env.emu.requests).toHaveLength(0);
	});
});
