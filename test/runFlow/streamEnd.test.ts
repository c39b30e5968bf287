/**
 * A streamed run ends at its final line, even when BotDojo (or a proxy) keeps the connection open
 * after it: the node outputs the answer and hangs up within a second (answerStream.ts,
 * HANG_UP_AFTER_MS), leaving no connection behind. The reader leaves the stream without Node's
 * AbortError, and n8n's helper wraps the body, so the hang-up is the node's own; this shows it.
 */
import { sleep, type IDataObject, type INodeParameters } from 'n8n-workflow';

import { runNode } from '../helpers/engine';
import { useScriptedServer } from '../transport/scriptedServer';

/** When the server saw each streamed answer's connection close (ms since it sent the final line). */
let closedAfterMs: number[] = [];

const FINAL = {
	id: 'fr_1',
	flow_id: 'flow_1',
	flow_session_id: 'fs_1',
	status: 'complete',
	response: { text_output: 'Hello there' },
};

const botdojo = useScriptedServer((_, res) => {
	res.writeHead(200, { 'content-type': 'application/x-ndjson' });
	res.write(`${JSON.stringify({ tag: 'onNewToken', data: { token: 'Hello ' } })}\n`);
	res.write(`${JSON.stringify({ tag: 'onNewToken', data: { token: 'there' } })}\n`);
	res.write(`${JSON.stringify(FINAL)}\n`);
	const sentAt = Date.now();
	// No res.end(): the connection stays open until the client closes it.
	res.on('close', () => closedAfterMs.push(Date.now() - sentAt));
});
beforeEach(() => {
	closedAfterMs = [];
});

async function closesWithin(ms: number, count: number): Promise<void> {
	const until = Date.now() + ms;
	while (closedAfterMs.length < count && Date.now() < until) await sleep(20);
}

/** Run Flow (streamed, the default) on the server above, with these Options. */
async function runFlowOn(options: INodeParameters, items?: Array<{ json: IDataObject }>) {
	return await runNode({
		node: {
			type: 'botDojoRunFlow',
			parameters: { flowId: 'flow_1', inputMode: 'message', message: 'Hi', options },
		},
		items,
		credentials: botdojo.credentials,
	});
}

describe('Run Flow: a stream that stays open after its final line', () => {
	it('outputs the answer and closes the connection', async () => {
		const started = Date.now();
		const { items, error } = await runFlowOn({});
		expect(error).toBeUndefined();
		expect(items.map((item) => [item.json.text, item.json.status])).toEqual([
			['Hello there', 'complete'],
		]);
		expect(Date.now() - started).toBeLessThan(5000); // not held to the 60 s Idle Timeout
		await closesWithin(3000, 1);
		expect(closedAfterMs).toHaveLength(1);
		expect(closedAfterMs[0]).toBeLessThan(3000);
	});

	it('closes every connection of a run over many items, 10 at once', async () => {
		const inputs = Array.from({ length: 25 }, (_, i) => ({ json: { i } }));
		const { items, error } = await runFlowOn({ concurrency: 10 }, inputs);
		expect(error).toBeUndefined();
		expect(items).toHaveLength(25);
		expect(new Set(items.map((item) => item.json.text))).toEqual(new Set(['Hello there']));
		await closesWithin(3000, 25);
		expect(closedAfterMs).toHaveLength(25);
	});
});
