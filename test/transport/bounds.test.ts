/**
 * Every read of an answer has a byte bound and a time bound (request.ts READ_BOUNDS; a run's
 * own: its Timeout and three times Max Stream Line). A body that never ends, or trickles so it
 * never goes idle, ends with an error naming the bound that was reached. The bounds are lowered
 * here (1 MiB, 0.4 s) so that the tests are quick; the product uses 128 MiB (pinned unlowered in
 * shippedAnswerBound.test.ts) and 60 s.
 */
import { runNode } from '../helpers/engine';
import { runPoll } from '../helpers/poll';
import { READ_BOUNDS } from '../../nodes/shared/transport/request';
import { API_KEY, endlessJson, flood, trickle, useScriptedServer } from './scriptedServer';

const botdojo = useScriptedServer();
const saved = { ...READ_BOUNDS };

beforeAll(() => {
	Object.assign(READ_BOUNDS, { answerBytes: 1024 * 1024, readMs: 400 });
});
afterAll(() => {
	Object.assign(READ_BOUNDS, saved);
});
beforeEach(() => {
	botdojo.requests.length = 0;
});

const TOO_LARGE =
	"BotDojo's answer is larger than 1 MiB and was refused rather than held in memory (the largest answer read whole)";
const TOO_SLOW =
	"BotDojo's answer took longer than 0.4 s to arrive and was cut off (the longest an answer may take)";
const getStatus = {
	type: 'botDojoQueryIndex',
	parameters: { operation: 'getStatus', indexId: 'idx_1' },
};

describe('a 200 answer that never ends', () => {
	it('Query Index: refused at the byte bound, named', async () => {
		botdojo.answer = endlessJson(200, '{"results":{"note":"', (res) => flood(res, 'x'));
		const { items, error } = await runNode({ node: getStatus, credentials: botdojo.credentials });
		expect(items).toEqual([]);
		expect(error?.message).toBe(TOO_LARGE);
	});

	it('an answer refused at the byte bound advises asking for less, not the Base URL', async () => {
		botdojo.answer = endlessJson(200, '{"results":{"note":"', (res) => flood(res, 'x'));
		const { error } = await runNode({ node: getStatus, credentials: botdojo.credentials });
		expect(error?.message).toBe(TOO_LARGE);
		expect(error?.description).toMatch(
			/^Ask BotDojo for less at a time: a smaller Page Size or Limit/,
		);
		expect(error?.description).not.toMatch(/Base URL/);
	});

	it('Export Requests: a page that trickles is cut at the time bound, named', async () => {
		botdojo.answer = endlessJson(200, '{"results":[', (res) => trickle(res, ' ', 50));
		const { items, error } = await runNode({
			node: {
				type: 'botDojoExportRequests',
				typeVersion: 1.1,
				parameters: { operation: 'export', flowId: 'flow_1', returnAll: true },
			},
			credentials: botdojo.credentials,
		});
		expect(items).toEqual([]);
		expect(error?.message).toBe(TOO_SLOW);
	});

	it('Trigger: a poll whose page trickles ends at the time bound, named', async () => {
		botdojo.answer = endlessJson(200, '{"results":[', (res) => trickle(res, ' ', 50));
		await expect(
			runPoll({
				node: { type: 'botDojoTrigger', parameters: { flowId: 'flow_1', statuses: 'both' } },
				credentials: botdojo.credentials,
				mode: 'manual',
			}),
		).rejects.toThrow(TOO_SLOW);
	});

	it('Run Flow with Streaming off: refused past three times Max Stream Line, named', async () => {
		botdojo.answer = endlessJson(200, '{"status":"complete","response":{"text_output":"', (res) =>
			flood(res, 'x'),
		);
		const { items, error } = await runNode({
			node: {
				type: 'botDojoRunFlow',
				parameters: {
					flowId: 'flow_1',
					inputMode: 'message',
					message: 'Hi',
					options: { streaming: false, maxLineMiB: 1 },
				},
			},
			credentials: botdojo.credentials,
		});
		expect(items).toEqual([]);
		expect(error?.message).toBe(
			"BotDojo's whole answer is longer than 3145728 characters (three times Max Stream Line (MiB)) and was refused rather than held in memory",
		);
	});
});

describe('an error answer that trickles forever', () => {
	it('a 401: the error with its status once the time bound passed', async () => {
		botdojo.answer = endlessJson(401, `{"error":"bad key ${API_KEY}`, (res) =>
			trickle(res, '.', 50),
		);
		const { error } = await runNode({ node: getStatus, credentials: botdojo.credentials });
		expect(error?.message).toBe('BotDojo rejected the API key (401)');
		expect(JSON.stringify(error)).not.toContain(API_KEY);
	});
});
