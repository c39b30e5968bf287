/** BotDojo Run Flow: tokens forwarded live through sendChunk when the workflow streams. */
import type { IExecuteFunctions } from 'n8n-workflow';

import { canForward } from '../../nodes/BotDojoRunFlow/helpers/output';
import { useEmulator } from '../helpers/emulator';
import { message, runFlow } from '../helpers/runFlow';

const env = useEmulator();

type Chunks = Awaited<ReturnType<typeof runFlow>>['chunks'];

function shape(chunks: Chunks) {
	return chunks.map(({ chunk }) => [chunk.type, chunk.content ?? null, chunk.metadata.itemIndex]);
}

describe('BotDojo Run Flow: live forwarding', () => {
	it('sends begin, the first token at once, the rest per network read, then end; the aggregated item is still output', async () => {
		const { items, chunks, error } = await runFlow(env, {
			parameters: message('flow_echo', 'Hi there'),
			streaming: true,
		});
		expect(error).toBeUndefined();
		const sent = shape(chunks);
		expect(sent[0]).toEqual(['begin', null, 0]);
		expect(sent[1]).toEqual(['item', 'Echo ', 0]);
		expect(sent[sent.length - 1]).toEqual(['end', null, 0]);
		const rest = sent.slice(2, -1);
		expect(rest.every(([type, , itemIndex]) => type === 'item' && itemIndex === 0)).toBe(true);
		// Text and order unchanged; tokens that came in one read share an item.
		expect(rest.map(([, content]) => content).join('')).toBe('#1: Hi there');
		expect(rest.length).toBeLessThanOrEqual(3);
		expect(chunks[0].chunk.metadata.nodeName).toBe('BotDojo');
		expect(items[0].json.text).toBe('Echo #1: Hi there');
	});

	it('sends the first token before the flow finished writing its stream', async () => {
		const atFirstToken: Array<{ status: string; responded: boolean }> = [];
		const { items, chunks } = await runFlow(env, {
			parameters: message('flow_slow', 'Count'),
			streaming: true,
			onChunk: (chunk) => {
				if (chunk.type !== 'item' || atFirstToken.length > 0) return;
				atFirstToken.push({
					status: [...env.emu.records.values()][0].status,
					responded: env.emu.requestsTo('run')[0].respondedAt !== undefined,
				});
			},
		});
		// At the first token, BotDojo was still running the flow and writing the stream.
		expect(atFirstToken).toEqual([{ status: 'running', responded: false }]);
		expect(chunks.filter(({ chunk }) => chunk.type === 'item')).toHaveLength(10);
		expect(items[0].json.text).toBe('one two three four five six seven eight nine ten');
		expect([...env.emu.records.values()][0].status).toBe('complete');
	});

	it('sends nothing when forwarding is switched off', async () => {
		const { items, chunks } = await runFlow(env, {
			parameters: message('flow_echo', 'Hi', { options: { forwardTokens: false } }),
			streaming: true,
		});
		expect(chunks).toEqual([]);
		expect(items[0].json.text).toBe('Echo #1: Hi');
	});

	it('sends the whole answer as one item when no tokens stream', async () => {
		for (const options of [{ streaming: false }, { events: ['onFlowEnd'] }]) {
			env.emu.reset();
			const { chunks } = await runFlow(env, {
				parameters: message('flow_echo', 'Hi', { options }),
				streaming: true,
			});
			expect(shape(chunks)).toEqual([
				['begin', null, 0],
				['item', 'Echo #1: Hi', 0],
				['end', null, 0],
			]);
		}
	});

	it('ends with one error chunk when the stream breaks', async () => {
		env.emu.injectFault({ type: 'drop', afterEvents: 4 }, { endpoint: 'run' });
		const failing = await runFlow(env, { parameters: message('flow_echo', 'Hi'), streaming: true });
		expect(failing.error?.message).toMatch(/connection dropped/);
		// n8n itself sends the error chunk of a failed node.
		expect(shape(failing.chunks)).toEqual([
			['begin', null, 0],
			['item', 'Echo ', 0],
			['item', '#1: ', 0],
			['error', failing.error?.description, 0],
		]);

		env.emu.injectFault({ type: 'drop', afterEvents: 4 }, { endpoint: 'run' });
		const continuing = await runFlow(env, {
			parameters: message('flow_echo', 'Hi'),
			streaming: true,
			continueOnFail: true,
		});
		const said = continuing.items[0].json.error as string;
		expect(said).toMatch(/connection dropped/);
		expect(shape(continuing.chunks)).toEqual([
			['begin', null, 0],
			['item', 'Echo ', 0],
			['item', '#1: ', 0],
			['error', said, 0],
		]);
	});

	it('keeps each item in order with concurrent runs', async () => {
		const { chunks } = await runFlow(env, {
			parameters: message('flow_slow', '={{ $json.q }}', { options: { concurrency: 2 } }),
			items: [{ json: { q: 'a' } }, { json: { q: 'b' } }],
			streaming: true,
		});
		for (const itemIndex of [0, 1]) {
			const own = chunks.filter(({ chunk }) => chunk.metadata.itemIndex === itemIndex);
			expect(own.map(({ chunk }) => chunk.type)).toEqual([
				'begin',
				...Array(10).fill('item'),
				'end',
			]);
			expect(own.map(({ chunk }) => chunk.content ?? '').join('')).toBe(
				'one two three four five six seven eight nine ten',
			);
		}
		// Both items streamed at the same time: item 1 began before item 0 ended.
		const types = chunks.map(({ chunk }) => `${chunk.type}${chunk.metadata.itemIndex}`);
		expect(types.indexOf('begin1')).toBeLessThan(types.indexOf('end0'));
	});

	it('forwards only where n8n streams the response', () => {
		const getNode = () => ({ type: 'n8n-nodes-botdojo.botDojoRunFlow' });
		const notStreaming = {
			getNode,
			isStreaming: () => false,
			sendChunk: () => {},
		} as unknown as IExecuteFunctions;
		const streaming = {
			getNode,
			isStreaming: () => true,
			sendChunk: () => {},
		} as unknown as IExecuteFunctions;
		expect([notStreaming, streaming].map(canForward)).toEqual([false, true]);
	});
});
