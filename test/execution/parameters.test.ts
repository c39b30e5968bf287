/**
 * The runner (nodes/shared/execution.ts) gives every item its own value of an expression and
 * its own error. Through Run Flow in n8n-core's WorkflowExecute. (A per-execution cache of
 * parameters without an expression was removed: in alternating rounds it saved no CPU beyond
 * the rounds' spread.)
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

describe('runner: every item reads its own parameters', () => {
	it('reads an expression for every item, each with its own value', async () => {
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
