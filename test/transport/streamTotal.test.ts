/**
 * A run's stream is bounded in all, not only line by line: at most 16 times Max Stream Line.
 * A BotDojo that streams short events without end (each line well within Max Stream Line)
 * grew n8n's memory by about 70 MB a second, bounded only by the run's Timeout (300 s).
 */
import type { INodeParameters } from 'n8n-workflow';

import { runNode } from '../helpers/engine';
import { API_KEY, flood, useScriptedServer } from './scriptedServer';

const botdojo = useScriptedServer();

const runNodeWith = (options: INodeParameters) => ({
	type: 'botDojoRunFlow',
	parameters: { flowId: 'flow_1', inputMode: 'message', message: 'Hi', options },
});

describe('a stream of events without end', () => {
	it.each([
		['tokens', `{"tag":"onNewToken","data":{"token":"${'x'.repeat(200)}"}}\n`, {}],
		[
			'events kept (Include Events)',
			'{"tag":"onLog","data":{"message":"again"}}\n',
			{ includeEvents: true },
		],
		['blank lines', '\n', {}],
	])('%s: refused past 16 times Max Stream Line, named', async (_, line, options) => {
		botdojo.answer = (__, res) => {
			res.writeHead(200, { 'content-type': 'application/x-ndjson' });
			flood(res, line);
		};
		const { items, error } = await runNode({
			node: runNodeWith({ ...options, maxLineMiB: 1 }),
			credentials: botdojo.credentials,
		});
		expect(items).toEqual([]);
		expect(error?.message).toMatch(
			/^The stream is longer than 16777216 characters in all and was refused rather than held in memory; \d+ events? had arrived$/,
		);
		expect(error?.description).toMatch(
			/^The whole stream was larger than 16 times the option Max Stream Line \(MiB\)/,
		);
		expect(JSON.stringify(error)).not.toContain(API_KEY);
	});

	it('a long stream within the bound still ends with its answer', async () => {
		const token = `{"tag":"onNewToken","data":{"token":"ab"}}\n`;
		botdojo.answer = (__, res) => {
			res.writeHead(200, { 'content-type': 'application/x-ndjson' });
			// About 12 MiB of events, then the final line: under 16 × 1 MiB.
			res.write(token.repeat(300_000));
			res.end(`{"id":"req_1","status":"complete","response":{"text_output":"done"}}\n`);
		};
		const { items, error } = await runNode({
			node: runNodeWith({ maxLineMiB: 1 }),
			credentials: botdojo.credentials,
		});
		expect(error).toBeUndefined();
		expect(items[0].json.text).toBe('done');
	});
});
