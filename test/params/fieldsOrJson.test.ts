/**
 * The one Fields-or-JSON kit behind Run Flow's input and Upload Document's meta: the same
 * parameter names as before, the same checks on both (a name given twice is refused on both).
 */
import type { IDataObject } from 'n8n-workflow';

import { runNode } from '../helpers/engine';
import { useEmulator } from '../helpers/emulator';
import { fileItem } from '../uploadDocument/documents';
import { expectInputError } from './inputError';

const env = useEmulator();

const file = { ...fileItem(Buffer.from('content'), 'a.txt', 'text/plain'), json: {} };

const users = [
	{
		node: 'Run Flow input',
		type: 'botDojoRunFlow',
		base: { flowId: 'flow_echo', options: { streaming: false } },
		names: { mode: 'inputMode', fields: 'bodyFields', json: 'bodyJson' },
		label: 'Input',
		entry: 'field',
		/** What BotDojo received as the object. */
		sent: (): unknown => env.emu.requestsTo('run')[0]?.body.body,
	},
	{
		node: 'Upload Document meta',
		type: 'botDojoUploadDocument',
		base: { operation: 'upload', logicalPath: 'docs/a.txt' },
		names: { mode: 'metaMode', fields: 'metaFields', json: 'metaJson' },
		label: 'Metadata',
		entry: 'attribute',
		sent: (): unknown => {
			const meta = env.emu.requestsTo('uploadFile')[0]?.body.fields.meta;
			return meta === undefined ? undefined : JSON.parse(meta as string);
		},
	},
];

/** One execution of the node of `user` with its base parameters and `parameters`. */
function runUser(
	user: (typeof users)[number],
	parameters: IDataObject,
	items: IDataObject[] = [{}, {}],
) {
	return runNode({
		node: { type: user.type, parameters: { ...user.base, ...parameters } as never },
		items: items.map((json) => ({ ...file, json })),
		credentials: env.credentials,
	});
}

describe.each(users)('$node', (user) => {
	const { names, label, entry, sent } = user;
	const run = (parameters: IDataObject, items?: IDataObject[]) => runUser(user, parameters, items);

	it('sends the JSON object as given', async () => {
		const { error } = await run(
			{ [names.mode]: 'json', [names.json]: '{"text_input": "Hi", "lang": "de", "n": 2}' },
			[{}],
		);
		expect(error).toBeUndefined();
		expect(sent()).toEqual({ text_input: 'Hi', lang: 'de', n: 2 });
	});

	it('sends the fields as an object', async () => {
		const { error } = await run(
			{
				[names.mode]: 'fields',
				[names.fields]: {
					field: [
						{ name: 'text_input', value: 'Hi' },
						{ name: 'source', value: 'crm' },
					],
				},
			},
			[{}],
		);
		expect(error).toBeUndefined();
		expect(sent()).toEqual({ text_input: 'Hi', source: 'crm' });
	});

	it('refuses a name given twice, naming the parameter and the item, before any request', async () => {
		const { error } = await run(
			{
				[names.mode]: 'fields',
				[names.fields]: {
					field: [
						{ name: 'text_input', value: 'Hi' },
						{ name: '={{ $json.second }}', value: 'again' },
					],
				},
			},
			[{ second: 'other' }, { second: 'text_input' }],
		);
		expectInputError(error, `${label} Fields › "text_input"`, 1, /is given twice/);
		expect(env.emu.requests).toHaveLength(0);
	});

	it('takes names that objects inherit (toString, constructor) as names, not as "given twice"', async () => {
		const { error } = await run(
			{
				[names.mode]: 'fields',
				[names.fields]: {
					field: [
						{ name: 'toString', value: 'a' },
						{ name: 'valueOf', value: 'b' },
						{ name: 'constructor', value: 'c' },
					],
				},
			},
			[{}],
		);
		expect(error).toBeUndefined();
		// All three arrive as keys of their own (n8n's helper dropped `constructor` from an object body).
		expect(Object.entries(sent() as object)).toEqual(
			expect.arrayContaining([
				['toString', 'a'],
				['valueOf', 'b'],
				['constructor', 'c'],
			]),
		);
	});

	it('refuses a field without a name and JSON that is not an object, naming each', async () => {
		const unnamed = await run({
			[names.mode]: 'fields',
			[names.fields]: { field: [{ name: ' ', value: 'x' }] },
		});
		expectInputError(unnamed.error, `${label} Fields › ${entry} 1 › Name`, 0, /is empty/);
		const notObject = await run({ [names.mode]: 'json', [names.json]: '["a"]' });
		expectInputError(
			notObject.error,
			`${label} (JSON)`,
			0,
			/must be a JSON object but is an array/,
		);
		expect(env.emu.requests).toHaveLength(0);
	});
});

describe('Upload Document meta', () => {
	it('sends the field names constructor and __proto__ as keys of their own', async () => {
		const { error } = await runUser(
			users[1],
			{
				metaMode: 'fields',
				metaFields: {
					field: [
						{ name: 'constructor', value: 'a' },
						{ name: '__proto__', value: 'b' },
					],
				},
			},
			[{}],
		);
		expect(error).toBeUndefined();
		expect(Object.entries(users[1].sent() as object)).toEqual([
			['constructor', 'a'],
			['__proto__', 'b'],
		]);
	});
});
