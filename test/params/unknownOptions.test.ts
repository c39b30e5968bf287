/**
 * An options parameter whose value (from an older workflow, an import or an API edit) is none of
 * its options is refused before any request, naming the parameter, the item and the valid
 * values: none falls back silently to its default.
 */
import { runNode, runPoll } from '../helpers/engine';
import { useEmulator } from '../helpers/emulator';

const env = useEmulator();

const cases: Array<
	[string, { type: string; parameters: Record<string, unknown> }, string, string]
> = [
	[
		'Run Flow Input',
		{ type: 'botDojoRunFlow', parameters: { flowId: 'flow_echo', inputMode: 'text' } },
		'Input: "text" is not one of its options',
		'Choose one of: Message (message), Using Fields Below (fields), Using JSON (json).',
	],
	[
		'Create Session Session Data',
		{ type: 'botDojoCreateSession', parameters: { flowId: 'flow_echo', dataMode: 'xml' } },
		'Session Data: "xml" is not one of its options',
		'Choose one of: None (none), Using Fields Below (fields), Using JSON (json).',
	],
	[
		'Get Download Link Document',
		{
			type: 'botDojoUploadDocument',
			parameters: { operation: 'getDownloadLink', documentSource: 'id', logicalPath: 'a.txt' },
		},
		'Document: "id" is not one of its options',
		'Choose one of: By Logical Path (logicalPath), From a Document Record (record).',
	],
	[
		'Get Download Link Expires',
		{
			type: 'botDojoUploadDocument',
			parameters: { operation: 'getDownloadLink', logicalPath: 'a.txt', expiresMode: 'hours' },
		},
		'Expires: "hours" is not one of its options',
		'Choose one of: In Minutes (minutes), At a Date (date).',
	],
];

describe('an options parameter with none of its values', () => {
	it.each(cases)('%s is refused before any request', async (_, node, message, description) => {
		const { items, error } = await runNode({
			node: node as never,
			items: [{ json: {} }, { json: {} }],
			credentials: env.credentials,
		});
		expect(error?.message).toBe(message);
		expect(error?.description).toBe(description);
		expect(error?.context?.itemIndex).toBe(0);
		expect(items).toEqual([]);
		expect(env.emu.requests).toEqual([]);
	});

	it('Trigger On is refused before any request', async () => {
		const poll = runPoll({
			node: {
				type: 'botDojoTrigger',
				parameters: { flowId: 'flow_watch', statuses: 'cancelled' } as never,
			},
			credentials: env.credentials,
			staticData: {},
		});
		await expect(poll).rejects.toThrow('Trigger On: "cancelled" is not one of its options');
		await expect(poll).rejects.toMatchObject({
			description:
				'Choose one of: Complete or Error (both), Complete Only (complete), Error Only (error).',
		});
		expect(env.emu.requests).toEqual([]);
	});
});
