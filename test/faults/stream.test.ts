/**
 * docs/troubleshooting.md, Stream: each way a streamed run can break after BotDojo accepted
 * it. The flow ran (once: nothing is retried), and the user is told not to retry blindly.
 */
import type { INodeParameters } from 'n8n-workflow';

import { OPTION_NAMES } from '../../nodes/BotDojoRunFlow/helpers/runOptions';
import { useEmulator } from '../helpers/emulator';
import { flowRuns, MAY_HAVE_RUN, whatUserSees } from '../helpers/faults';
import { message, runFlow } from '../helpers/runFlow';
import { until } from '../helpers/until';

const env = useEmulator();

interface Row {
	fault: string;
	/** The emulator's fault (armed for 5 requests: a retry would meet it again). */
	inject: string | { type: string; [option: string]: unknown };
	options?: INodeParameters;
	/** What the user reads: the message, then key phrases of the description. */
	message: string | RegExp;
	sees?: Array<RegExp | string>;
}

const rows: Row[] = [
	{
		fault: 'dropped stream',
		inject: { type: 'drop', afterEvents: 2 },
		message: 'The connection dropped before the final result line (aborted); 2 events had arrived',
	},
	{
		fault: 'malformed line',
		inject: 'malformed',
		message:
			/^Line 4 of the stream is not valid JSON \(.+\): ".*#!garbage.*"; 3 events had arrived$/,
		sees: [/not JSON in the middle of the stream/],
	},
	{
		fault: 'missing final line',
		inject: 'no-final',
		message: 'The stream ended without the final result line; 6 events had arrived',
		sees: [/Look the run up among the flow requests of flow "flow_echo"/],
	},
	{
		fault: 'stalled stream',
		inject: 'stall',
		options: { idleTimeout: 0.2 },
		message: 'The stream stalled: nothing arrived for 200 ms; 3 events had arrived',
		sees: [/Raise the Idle Timeout option/],
	},
	{
		fault: 'whole answer (application/json) that stalls halfway',
		inject: 'whole-answer-stall',
		options: { idleTimeout: 0.2 },
		message: "BotDojo's answer stalled: nothing arrived for 200 ms",
		sees: [/Raise the Idle Timeout option/],
	},
	{
		fault: 'whole answer that stalls halfway, with no Idle Timeout',
		inject: 'whole-answer-stall',
		options: { idleTimeout: 0, timeout: 0.5 },
		message: 'The run took longer than the timeout of 500 ms',
		sees: [/Raise the Timeout option/],
	},
	{
		fault: 'whole answer that drops halfway',
		inject: 'whole-answer-drop',
		message:
			/^The connection dropped before BotDojo's whole answer had arrived \(aborted\); \d+ bytes had arrived$/,
		sees: [/The connection broke: BotDojo, a proxy or the network closed it/],
	},
	{
		fault: 'blocking run (Streaming off) whose answer stalls halfway',
		inject: 'whole-answer-stall',
		options: { streaming: false, timeout: 0.5 },
		message: 'BotDojo did not answer within the timeout of 500 ms',
		sees: [/Raise the Timeout option/],
	},
	{
		// Read by the run itself (within its Timeout and three times Max Stream Line), as a
		// streamed run's whole answer is: the same words, with the bytes that had arrived.
		fault: 'blocking run whose answer drops halfway',
		inject: 'whole-answer-drop',
		options: { streaming: false },
		message:
			/^The connection dropped before BotDojo's whole answer had arrived \(aborted\); \d+ bytes had arrived$/,
		sees: [/The connection broke: BotDojo, a proxy or the network closed it/],
	},
	{
		fault: 'oversize line',
		inject: { type: 'huge-line', bytes: 3 * 1024 * 1024 },
		options: { maxLineMiB: 1 },
		message:
			/^Line 2 of the stream is longer than 1048576 characters \(at least \d+ so far\) and was refused rather than held in memory; 1 event had arrived$/,
		sees: [`option ${OPTION_NAMES.maxLineMiB} allows`],
	},
];

describe('What happens when… the stream of a run breaks', () => {
	it.each(rows)('$fault', async (row) => {
		env.emu.injectFault(row.inject as never, { endpoint: 'run', times: 5 });
		const result = await runFlow(env, {
			parameters: message('flow_echo', 'Hi', { options: row.options ?? {} }),
		});
		if (typeof row.message === 'string') expect(result.error?.message).toBe(row.message);
		else expect(result.error?.message).toMatch(row.message);
		const seen = whatUserSees(result);
		for (const phrase of row.sees ?? []) expect(seen).toMatch(phrase);
		expect(seen).toMatch(MAY_HAVE_RUN);
		expect(JSON.stringify([result.error, result.items])).not.toContain(env.credentials.main.apiKey);
		// Sent once, never again; the flow ran once.
		const requests = env.emu.requestsTo('run');
		expect(requests).toHaveLength(1);
		expect(flowRuns(env)).toBe(1);
		// The node hung up: the emulator saw its answer end (a stalled stream waits for that).
		await until(() => requests[0].respondedAt !== undefined);
	});
});
