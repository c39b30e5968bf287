/**
 * The runner reads a parameter without an expression from n8n once per execution
 * (nodes/shared/execution.ts), and still gives every item its own value of an
 * expression and its own error. Through Run Flow in n8n-core's WorkflowExecute.
 */
import { ExecuteContext } from 'n8n-core';

import { useEmulator } from '../helpers/emulator';
import { message, runFlow } from '../helpers/runFlow';

const env = useEmulator();

/** How often n8n's own getNodeParameter read each parameter during `run`. */
async function countReads(run: () => Promise<unknown>): Promise<Record<string, number>> {
	const prototype = ExecuteContext.prototype as unknown as {
		_getNodeParameter: (name: string, ...rest: unknown[]) => unknown;
	};
	const original = prototype._getNodeParameter;
	const reads: Record<string, number> = {};
	const spy = jest.spyOn(prototype, '_getNodeParameter').mockImplementation(function (
		this: unknown,
		name: string,
		...rest: unknown[]
	) {
		reads[name] = (reads[name] ?? 0) + 1;
		return original.call(this, name, ...rest);
	});
	try {
		await run();
	} finally {
		spy.mockRestore();
	}
	return reads;
}

const ITEMS = 20;
const questions = Array.from({ length: ITEMS }, (_, i) => ({ json: { q: `question ${i}` } }));

describe('runner: parameters read once where they cannot differ between items', () => {
	it('reads a value without an expression once, and an expression for every item', async () => {
		let result: Awaited<ReturnType<typeof runFlow>> | undefined;
		const reads = await countReads(async () => {
			result = await runFlow(env, {
				parameters: message('flow_echo', '={{ $json.q }}', {
					options: { concurrency: 4, streaming: false, timeout: 120 },
				}),
				items: questions,
			});
		});
		expect(result?.error).toBeUndefined();
		expect(result?.items.map((item) => item.json.text)).toEqual(
			questions.map(({ json }) => `Echo #1: ${json.q}`),
		);
		expect(reads.message).toBe(ITEMS);
		// Options is read by two steps of an item's check, the flow ID by one: once each in all.
		expect(reads.options).toBe(1);
		expect(reads.flowId).toBe(1);
		expect(reads.inputMode).toBe(1);
		// Not in the workflow (hidden by its settings): n8n's fallback, the same for every item.
		expect(reads.messageProperty).toBe(1);
		expect(reads.toolOutput).toBe(1);
	});

	it('gives every item its own error for a value that is wrong for all (Continue On Fail)', async () => {
		const { items, error } = await runFlow(env, {
			parameters: message('flow_echo', '={{ $json.q }}', { options: { timeout: -1 } }),
			items: questions.slice(0, 3),
			continueOnFail: true,
		});
		expect(error).toBeUndefined();
		expect(items.map((item) => item.json.error)).toEqual(
			Array.from({ length: 3 }, () =>
				expect.stringMatching(/^Options › Timeout \(Seconds\): must be a number of seconds/),
			),
		);
		expect(env.emu.requestsTo('run')).toHaveLength(0);
	});
});
