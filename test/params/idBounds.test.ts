/**
 * Ids that would change where a request goes or how large it is are refused before anything is
 * sent, naming the parameter and the item: `.` and `..` (they change the path: a Flow ID of
 * `..` would post to the project's `/run`), ids over 256 characters (a 1 MB Flow ID met a 431
 * that said the flow may have run), and a By URL address with a malformed `%` escape.
 */
import type { INodeParameters } from 'n8n-workflow';

import { runNode } from '../helpers/engine';
import { useEmulator } from '../helpers/emulator';
import { expectInputError } from './inputError';

const env = useEmulator();

const FLOWS_URL = 'https://app.botdojo.com/acc_demo/projects/proj_demo/flows/';
const byId = (value: string) => ({ __rl: true, mode: 'id', value });
const fromUrl = (value: string) => ({ __rl: true, mode: 'url', value });

const rows: Array<{
	value: string;
	node: string;
	parameters: INodeParameters;
	parameter: string;
	problem: RegExp;
}> = [
	{
		value: 'Flow ID ".." (By ID)',
		node: 'botDojoRunFlow',
		parameters: { flowId: byId('..') },
		parameter: 'Flow ID',
		problem: /^Flow ID: "\.\." is not an id$/,
	},
	{
		value: 'Flow ID "." (a plain string, saved before the locator)',
		node: 'botDojoRunFlow',
		parameters: { flowId: '.' },
		parameter: 'Flow ID',
		problem: /^Flow ID: "\." is not an id$/,
	},
	{
		value: 'Flow ID "%2E%2E" (By URL)',
		node: 'botDojoRunFlow',
		parameters: { flowId: fromUrl(`${FLOWS_URL}%2E%2E`) },
		parameter: 'Flow ID (By URL)',
		problem: /^Flow ID \(By URL\): "\.\." is not an id$/,
	},
	{
		value: 'a malformed % escape (By URL)',
		node: 'botDojoRunFlow',
		parameters: { flowId: fromUrl(`${FLOWS_URL}flow_%E0%A4%A`) },
		parameter: 'Flow ID (By URL)',
		problem: /has a malformed % escape$/,
	},
	{
		value: 'a 1 MB Flow ID',
		node: 'botDojoRunFlow',
		parameters: { flowId: byId('f'.repeat(1024 * 1024)) },
		parameter: 'Flow ID',
		problem: /^Flow ID: is 1048576 characters long; ids have at most 256$/,
	},
	{
		value: 'a 257-character Index ID',
		node: 'botDojoQueryIndex',
		parameters: { operation: 'getStatus', indexId: byId('i'.repeat(257)) },
		parameter: 'Index ID',
		problem: /^Index ID: is 257 characters long; ids have at most 256$/,
	},
];

describe('ids refused before sending', () => {
	it.each(rows)('$value', async (row) => {
		const parameters =
			row.node === 'botDojoRunFlow'
				? { inputMode: 'message', message: 'Hi', ...row.parameters }
				: row.parameters;
		const { error } = await runNode({
			node: { type: row.node, parameters },
			items: [{ json: {} }, { json: {} }],
			credentials: env.credentials,
		});
		expectInputError(error, row.parameter, 0, row.problem);
		expect(error?.description).toMatch(/Enter the ID|Paste the address/);
		expect(env.emu.requests).toHaveLength(0);
	});

	it('a 256-character Flow ID is sent (BotDojo then says it does not know it)', async () => {
		const { error } = await runNode({
			node: {
				type: 'botDojoRunFlow',
				parameters: { inputMode: 'message', message: 'Hi', flowId: byId('f'.repeat(256)) },
			},
			credentials: env.credentials,
		});
		expect(error?.message).toMatch(/^BotDojo could not find it/);
		expect(env.emu.requestsTo('run')).toHaveLength(1);
	});
});
