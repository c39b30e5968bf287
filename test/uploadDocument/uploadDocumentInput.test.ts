/** BotDojo Upload Document: bad input is refused before any request, naming parameter and item. */
import type { IDataObject } from 'n8n-workflow';

import { runNode } from '../helpers/engine';
import { useEmulator } from '../helpers/emulator';
import { fileItem } from './documents';

const env = useEmulator();

const file = { ...fileItem(Buffer.from('content'), 'a.txt', 'text/plain'), json: {} };

async function run(
	parameters: IDataObject,
	items: Array<{ json: IDataObject; binary?: IDataObject }> = [file],
) {
	const result = await runNode({
		node: { type: 'botDojoUploadDocument', parameters: parameters as never },
		items,
		credentials: env.credentials,
	});
	// Refused before any request: BotDojo saw nothing at all.
	expect(env.emu.requests).toEqual([]);
	expect(result.items).toEqual([]);
	return result.error;
}

describe('BotDojo Upload Document: bad input, Upload', () => {
	it('refuses a missing binary field, listing the fields the item has', async () => {
		const error = await run({
			operation: 'upload',
			logicalPath: 'docs/a.txt',
			binaryPropertyName: 'attachment',
		});
		expect(error?.message).toBe('Input Binary Field: the item has no binary field "attachment"');
		expect(error?.description).toBe("The item's binary fields are: data. Enter one of them.");
	});

	it('refuses an item without any binary data', async () => {
		const error = await run({ operation: 'upload', logicalPath: 'docs/a.txt' }, [{ json: {} }]);
		expect(error?.message).toMatch(/^Input Binary Field: the item has no binary field "data"/);
		expect(error?.description).toMatch(/no binary data at all/);
	});

	it('refuses an empty logical path', async () => {
		const error = await run({ operation: 'upload', logicalPath: '   ' });
		expect(error?.message).toBe('Logical Path: is empty');
		expect(error?.context?.itemIndex).toBe(0);
		expect(error?.description).toMatch(/e\.g\. docs\/handbook\.pdf/);
	});

	it.each([
		['../secrets.txt', 'contains a ".." segment'],
		['docs/./a.txt', 'contains a "." segment'],
		['/docs/a.txt', 'starts with "/"'],
		['docs/', 'ends with "/"'],
		['docs//a.txt', 'contains an empty segment'],
		['docs\\a.txt', 'contains a backslash'],
		['docs/a\n.txt', 'contains a control character'],
		['docs/ a.txt', 'has a segment that starts or ends with a space'],
		['docs/xxx… (1105 characters)', 'is 1105 characters long'],
	])('refuses the logical path %j', async (example, problem) => {
		const logicalPath = example.includes('…') ? `docs/${'x'.repeat(1100)}` : example;
		const error = await run({ operation: 'upload', logicalPath });
		expect(error?.message).toContain(`Logical Path: ${problem}`);
		expect(error?.context?.itemIndex).toBe(0);
	});

	it('accepts surrounding spaces and sends the path trimmed', async () => {
		const { items, error } = await runNode({
			node: {
				type: 'botDojoUploadDocument',
				parameters: { operation: 'upload', logicalPath: '  docs/a.txt \n' } as never,
			},
			items: [file],
			credentials: env.credentials,
		});
		expect(error).toBeUndefined();
		expect(items[0].json.logicalPath).toBe('docs/a.txt');
	});

	it('refuses invalid meta JSON', async () => {
		const error = await run({
			operation: 'upload',
			logicalPath: 'docs/a.txt',
			metaMode: 'json',
			metaJson: '{"source": crm}',
		});
		expect(error?.message).toMatch(/^Metadata \(JSON\): is not valid JSON \(.+\)$/);
	});

	it('refuses meta JSON that is not an object', async () => {
		const error = await run({
			operation: 'upload',
			logicalPath: 'docs/a.txt',
			metaMode: 'json',
			metaJson: '["a"]',
		});
		expect(error?.message).toBe('Metadata (JSON): must be a JSON object but is an array');
	});

	it('refuses a meta field without a name, and a name given twice', async () => {
		const unnamed = await run({
			operation: 'upload',
			logicalPath: 'docs/a.txt',
			metaMode: 'fields',
			metaFields: { field: [{ name: '', value: 'x' }] },
		});
		expect(unnamed?.message).toBe('Metadata Fields › attribute 1 › Name: is empty');
		expect(unnamed?.context?.itemIndex).toBe(0);
		const twice = await run({
			operation: 'upload',
			logicalPath: 'docs/a.txt',
			metaMode: 'fields',
			metaFields: {
				field: [
					{ name: 'a', value: '1' },
					{ name: 'a', value: '2' },
				],
			},
		});
		expect(twice?.message).toBe('Metadata Fields › "a": is given twice');
		expect(twice?.context?.itemIndex).toBe(0);
	});

	it('checks every item before the first upload: a bad third item stops all of them', async () => {
		const error = await run({ operation: 'upload', logicalPath: '={{ $json.path }}' }, [
			{ ...file, json: { path: 'docs/1.txt' } },
			{ ...file, json: { path: 'docs/2.txt' } },
			{ ...file, json: { path: '' } },
		]);
		expect(error?.message).toBe('Logical Path: is empty');
		expect(error?.context?.itemIndex).toBe(2);
	});
});

describe('BotDojo Upload Document: bad input, lookups', () => {
	it('refuses an empty logical path for Get by Logical Path', async () => {
		const error = await run({ operation: 'getByLogicalPath', logicalPath: '={{ $json.path }}' }, [
			{ json: { path: '' } },
		]);
		expect(error?.message).toBe('Logical Path: is empty');
		expect(error?.context?.itemIndex).toBe(0);
	});

	it('refuses an expiry date in the past', async () => {
		const error = await run(
			{
				operation: 'getDownloadLink',
				logicalPath: 'docs/a.txt',
				expiresMode: 'date',
				expiresAt: '2020-01-01T00:00:00Z',
			},
			[{ json: {} }],
		);
		expect(error?.message).toMatch(
			/^Expires At: is in the past \(2020-01-01T00:00:00\.000Z, now is .+\)$/,
		);
		expect(error?.description).toMatch(/after now/);
	});

	it('refuses an expiry that is not a date', async () => {
		const error = await run(
			{
				operation: 'getDownloadLink',
				logicalPath: 'docs/a.txt',
				expiresMode: 'date',
				expiresAt: 'next tuesday',
			},
			[{ json: {} }],
		);
		expect(error?.message).toBe('Expires At: is not a date ("next tuesday")');
		expect(error?.context?.itemIndex).toBe(0);
	});

	it.each([0, -5])('refuses %p minutes', async (minutes) => {
		const error = await run(
			{ operation: 'getDownloadLink', logicalPath: 'docs/a.txt', expiresInMinutes: minutes },
			[{ json: {} }],
		);
		expect(error?.message).toMatch(
			/^Expires In \(Minutes\): is -?\d+, so the link would already have expired/,
		);
	});

	it('refuses more minutes than a date can hold (it failed as "Invalid time value")', async () => {
		const error = await run(
			{ operation: 'getDownloadLink', logicalPath: 'docs/a.txt', expiresInMinutes: 1e12 },
			[{ json: {} }],
		);
		expect(error?.message).toBe(
			'Expires In (Minutes): is 1000000000000, later than any date can be',
		);
	});

	it('refuses less than the field minimum of 1 minute, from an expression too', async () => {
		const error = await run(
			{ operation: 'getDownloadLink', logicalPath: 'docs/a.txt', expiresInMinutes: '={{ 0.5 }}' },
			[{ json: {} }],
		);
		expect(error?.message).toMatch(
			/^Expires In \(Minutes\): is 0.5, less than the shortest link, 1 minute/,
		);
		expect(error?.description).toBe('Enter a number of minutes, 1 or more, e.g. 60.');
	});

	it('refuses a document record without an id', async () => {
		const error = await run(
			{ operation: 'getDownloadLink', documentSource: 'record', documentRecord: '={{ $json }}' },
			[{ json: { logicalPath: 'docs/a.txt' } }],
		);
		expect(error?.message).toBe('Document Record: has no "id"');
		expect(error?.context?.itemIndex).toBe(0);
		expect(error?.description).toMatch(/By Logical Path/);
	});

	it('refuses a document record that is not JSON', async () => {
		const error = await run(
			{ operation: 'getDownloadLink', documentSource: 'record', documentRecord: 'doc_123' },
			[{ json: {} }],
		);
		expect(error?.message).toMatch(/^Document Record: is not valid JSON/);
	});
});
