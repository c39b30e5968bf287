/**
 * docs/troubleshooting.md, Key echoed: a record BotDojo stored quotes the API key (a user
 * pasted it into a message, a flow logged its request). Export Requests, Get Many by Session and
 * the Trigger output records as data; the key is redacted from them too, in every form, while a
 * record that holds no key comes out unchanged.
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { readBinary, runNode, runPoll, type RunResult } from '../helpers/engine';
import { useEmulator } from '../helpers/emulator';
import { exportRequestsNode } from '../helpers/exportRequestsNode';
import { captureLogs, keyShown } from '../helpers/keyLeaks';

const env = useEmulator();
const logs = captureLogs();
const FLOW = 'flow_echo';
const SESSION = 'ses_keyed';

/** The key as a record may hold it: raw, in a Basic header (base64), URL-encoded. */
function quotes(key: string): string[] {
	return [
		`my key is ${key}`,
		`Authorization: Basic ${Buffer.from(`user:${key}`).toString('base64')}`,
		`GET /x?api_key=${encodeURIComponent(key)}`,
	];
}

function seedRecords(start = Date.now() - 60_000): void {
	quotes(env.credentials.main.apiKey).forEach((text, i) =>
		env.emu.addRecord({
			id: `req_key_${i}`,
			flow_id: FLOW,
			flow_session_id: SESSION,
			body: { text_input: text },
			modified: new Date(start + i * 1000).toISOString(),
		}),
	);
	env.emu.addRecord({
		id: 'req_plain',
		flow_id: FLOW,
		flow_session_id: SESSION,
		body: { text_input: 'nothing secret here' },
		modified: new Date(start + 5000).toISOString(),
	});
}

function asResult(items: INodeExecutionData[]): RunResult {
	return { items, errorItems: [], chunks: [], run: { data: {} } as never, staticData: {} };
}

function expectRedacted(items: INodeExecutionData[]): void {
	const key = env.credentials.main.apiKey;
	const text = JSON.stringify(items);
	expect(items.length).toBeGreaterThanOrEqual(4);
	// Each record that quoted the key shows *** where it was; the plain one is as stored.
	expect(text.match(/\*\*\*/g)?.length).toBeGreaterThanOrEqual(3);
	expect(text).toContain('nothing secret here');
	// Pieces of the key that ordinary fields hold too ("project" of bdk_project_…) are not leaks.
	const plain = items.filter((item) => JSON.stringify(item).includes('nothing secret here'));
	const ordinary = keyShown(asResult(plain), [], key);
	const shown = keyShown(asResult(items), logs, key);
	expect(shown.filter((piece) => !ordinary.includes(piece))).toEqual([]);
	expect(ordinary.length).toBeLessThan(5);
}

describe('What happens when… a stored record quotes the API key', () => {
	beforeEach(() => {
		logs.length = 0;
	});

	it.each([true, false])('Export Requests (Simplify %s) outputs it as ***', async (simplify) => {
		seedRecords();
		const result = await runNode({
			node: exportRequestsNode(FLOW, { returnAll: true, simplify }),
			credentials: env.credentials,
		});
		expect(result.error).toBeUndefined();
		expectRedacted(result.items);
	});

	it.each(['csvFile', 'jsonLinesFile'])(
		'Export Requests to a file (%s) writes it as ***',
		async (output) => {
			seedRecords();
			const result = await runNode({
				node: exportRequestsNode(FLOW, { returnAll: true, output }),
				credentials: env.credentials,
			});
			expect(result.error).toBeUndefined();
			const text = (await readBinary(result.items[0].binary!.data)).toString('utf8');
			expect(text.match(/\*\*\*/g)?.length).toBeGreaterThanOrEqual(3);
			expect(text).toContain('nothing secret here');
			const key = env.credentials.main.apiKey;
			const asItem = { json: { text } } as INodeExecutionData;
			const ordinary = keyShown(asResult([{ json: { text: 'nothing secret here' } }]), [], key);
			expect(keyShown(asResult([asItem]), logs, key).filter((p) => !ordinary.includes(p))).toEqual(
				[],
			);
		},
	);

	it('Get Many by Session outputs it as ***', async () => {
		seedRecords();
		const result = await runNode({
			node: exportRequestsNode(FLOW, {
				operation: 'getBySession',
				sessionId: SESSION,
			} as IDataObject),
			credentials: env.credentials,
		});
		expect(result.error).toBeUndefined();
		expectRedacted(result.items);
	});

	it('a record that holds the key cut off (its first 20 of 27 characters) outputs it as ***', async () => {
		const key = env.credentials.main.apiKey;
		const cut = key.slice(0, 20);
		env.emu.addRecord({
			id: 'req_cut',
			flow_id: FLOW,
			flow_session_id: SESSION,
			// A start of the key alone on its page; ordinary text shares its first 12 characters.
			body: { text_input: `pasted ${cut} by mistake`, note: `${key.slice(0, 12)}readonly` },
			modified: new Date(Date.now() - 60_000).toISOString(),
		});
		const result = await runNode({
			node: exportRequestsNode(FLOW, { returnAll: true, simplify: false }),
			credentials: env.credentials,
		});
		expect(result.error).toBeUndefined();
		expect(result.items.map((item) => item.json.body)).toEqual([
			{ text_input: 'pasted *** by mistake', note: `${key.slice(0, 12)}readonly` },
		]);
	});

	it('the Trigger outputs it as ***', async () => {
		const staticData: IDataObject = {};
		const poll = async () =>
			await runPoll({
				node: { type: 'botDojoTrigger', parameters: { flowId: FLOW, statuses: 'both' } as never },
				credentials: env.credentials,
				staticData,
			});
		// The first poll sets where the trigger starts; the records come after it.
		expect((await poll()).output).toBeNull();
		seedRecords(Date.now() + 1000);
		const { output } = await poll();
		expectRedacted(output?.[0] ?? []);
	});
});
