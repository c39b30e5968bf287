/**
 * A streamed run ends at its final line, even when BotDojo (or a proxy) keeps the connection open
 * after it: the node outputs the answer and hangs up (transport/run.ts), leaving no connection
 * behind. The reader leaves the stream without Node's AbortError, and n8n's helper wraps the body,
 * so the hang-up is the node's own; this shows it. The server here ends an answer itself only
 * long after the node should have hung up (SERVER_ENDS_AFTER_MS), and records who closed each
 * connection first: the node (the client) or the server. No time is asserted.
 */
import { sleep, type IDataObject, type INodeParameters } from 'n8n-workflow';

import { HANG_UP_AFTER_MS } from '../../nodes/shared/transport/run';
import { runNode } from '../helpers/engine';
import { useScriptedServer } from '../transport/scriptedServer';

/** When the server gives up waiting for the node and ends the answer itself (far past the
 *  node's hang-up, well within jest's 60 s per test). */
const SERVER_ENDS_AFTER_MS = 20 * HANG_UP_AFTER_MS;

type ClosedBy = 'client' | 'server';

/** Who closed each streamed answer's connection, in the order they closed. */
let closedBy: ClosedBy[] = [];
let onClosed = () => {};

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
	// No res.end() now: the connection stays open until the client closes it, or until this.
	const closed = new AbortController();
	sleep(SERVER_ENDS_AFTER_MS, closed.signal).then(
		() => res.end(),
		() => undefined,
	);
	res.on('close', () => {
		closed.abort();
		// Ended by the server: the response was ended before the connection closed.
		closedBy.push(res.writableEnded ? 'server' : 'client');
		onClosed();
	});
});
beforeEach(() => {
	closedBy = [];
	botdojo.requests.length = 0;
});

/** Resolves once `count` connections have closed, by either side. */
async function connectionsClosed(count: number): Promise<void> {
	await new Promise<void>((resolve) => {
		onClosed = () => {
			if (closedBy.length >= count) resolve();
		};
		onClosed();
	});
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
	it('outputs the whole answer and the node closes the connection, not BotDojo', async () => {
		const { items, error } = await runFlowOn({});
		expect(error).toBeUndefined();
		expect(items.map((item) => [item.json.text, item.json.status])).toEqual([
			['Hello there', 'complete'],
		]);
		await connectionsClosed(1);
		expect(closedBy).toEqual(['client']);
		expect(botdojo.requests).toHaveLength(1);
	});

	it('the node closes every connection of a run over many items, 10 at once', async () => {
		const inputs = Array.from({ length: 25 }, (_, i) => ({ json: { i } }));
		const { items, error } = await runFlowOn({ concurrency: 10 }, inputs);
		expect(error).toBeUndefined();
		expect(items.map((item) => item.json.text)).toEqual(inputs.map(() => 'Hello there'));
		await connectionsClosed(25);
		expect(closedBy).toEqual(inputs.map(() => 'client'));
		expect(botdojo.requests).toHaveLength(25);
	});
});
