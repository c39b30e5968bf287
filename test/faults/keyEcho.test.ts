/**
 * docs/troubleshooting.md, Key echoed: BotDojo, or a proxy before it, quotes the API key back
 * in an error, in a wrong-shaped answer or in a run's stream: raw, JSON-escaped (the key has `"`
 * and `\`), split across two chunks, or placed where a quote is shortened. Each row checks that
 * no piece of the key is shown anywhere: output, error and its details, execution data, logs.
 */
import type { INodeParameters } from 'n8n-workflow';

import type { FaultParams, FaultType } from '../../emulator/types';
import { runNode } from '../helpers/engine';
import { useEmulator } from '../helpers/emulator';
import { flowRuns, whatUserSees } from '../helpers/faults';
import { captureLogs, HOSTILE_KEY, keyShown } from '../helpers/keyLeaks';
import { message } from '../helpers/runFlow';

const env = useEmulator();
const logs = captureLogs();

/** Where a quote is shortened: the key is padded to straddle that point. */
const STRADDLE_500 = 455; // "Invalid API key. " + pad + "Authorization: " → key at 487
const STRADDLE_200 = 160; // '[{"echo":"' + pad + "Authorization: " → key at 185
const STRADDLE_80 = 20; // '{"tag":"onLog","data":{"message":"' + pad + … → key at 69

const NODES = {
	'Run Flow': (parameters: INodeParameters = {}) => ({
		type: 'botDojoRunFlow',
		parameters: message('flow_echo', 'Hi', parameters),
	}),
	'Run Flow (blocking)': () => ({
		type: 'botDojoRunFlow',
		parameters: message('flow_echo', 'Hi', { options: { streaming: false } }),
	}),
	'Query Index': () => ({
		type: 'botDojoQueryIndex',
		parameters: { operation: 'getStatus', indexId: 'idx_docs' },
	}),
	'Export Requests': () => ({
		type: 'botDojoExportRequests',
		parameters: { operation: 'export', flowId: 'flow_echo', returnAll: true },
	}),
	'Create Session': () => ({
		type: 'botDojoCreateSession',
		parameters: { flowId: 'flow_echo' },
	}),
};

interface Row {
	fault: string;
	node: keyof typeof NODES;
	/** Faults armed for the node's request(s). */
	inject: Array<{ type: FaultType } & FaultParams>;
	/** What the user reads (message and description). */
	sees: RegExp;
}

const rows: Row[] = [
	{
		fault: 'error body quotes the key (401), where the quote is shortened',
		node: 'Run Flow',
		inject: [{ type: 'echo-key', pad: STRADDLE_500 }],
		sees: /rejected the API key \(401\)[\s\S]*BotDojo said: "Invalid API key\. \.+/,
	},
	{
		fault: 'error body quotes the key JSON-escaped (401)',
		node: 'Query Index',
		inject: [{ type: 'echo-key', form: 'escaped' }],
		sees: /rejected the API key \(401\)[\s\S]*Request was \{"headers":\{"authorization":"\*\*\*"\}\}/,
	},
	{
		fault: 'error body quotes the key split across two chunks (401)',
		node: 'Export Requests',
		inject: [{ type: 'echo-key', form: 'split' }],
		sees: /rejected the API key \(401\)[\s\S]*Authorization: \*\*\*/,
	},
	{
		fault: 'error body of a 500 quotes the key',
		node: 'Create Session',
		inject: [{ type: '500' }, { type: 'echo-key', pad: STRADDLE_500 }],
		sees: /could not handle the request \(500\)/,
	},
	{
		fault: 'wrong-shaped answer quotes the key, where the sample is cut',
		node: 'Query Index',
		inject: [{ type: 'echo-key-answer', pad: STRADDLE_200 }],
		sees: /not what that endpoint returns: expected an object, got an array[\s\S]*The answer began: \[\{"echo":"\.+/,
	},
	{
		fault: 'wrong-shaped answer to a run quotes the key JSON-escaped',
		node: 'Run Flow (blocking)',
		inject: [{ type: 'echo-key-answer', form: 'escaped' }],
		sees: /expected a flow request record \(an object\), got \[\{"echo":"Request was/,
	},
	{
		fault: 'wrong-shaped answer to a streamed run, split across two chunks',
		node: 'Run Flow',
		inject: [{ type: 'echo-key-answer', form: 'split', pad: STRADDLE_200 }],
		sees: /expected a flow request record \(an object\), got \[\{"echo":"\.+/,
	},
	{
		fault: 'wrong-shaped export page quotes the key',
		node: 'Export Requests',
		inject: [{ type: 'echo-key-answer', form: 'split' }],
		sees: /flow_requests\/export/,
	},
	{
		fault: "stream's log event and final line quote the key",
		node: 'Run Flow',
		inject: [{ type: 'echo-key-stream', pad: STRADDLE_500 }],
		sees: /The flow reported an error: The flow failed\. \.+/,
	},
	{
		fault: "stream's events and final line quote the key JSON-escaped, split across chunks",
		node: 'Run Flow',
		inject: [{ type: 'echo-key-stream', form: 'escaped' }, { type: 'split-utf8' }],
		sees: /The flow reported an error: The flow failed\. Request was/,
	},
	{
		fault: 'stream line that is not JSON quotes the key where its preview is cut',
		node: 'Run Flow',
		inject: [{ type: 'echo-key-stream', line: 'malformed', pad: STRADDLE_80 }],
		sees: /Line 2 of the stream is not valid JSON/,
	},
	{
		fault: 'stream line that is not JSON starts with the key (the parser quotes it)',
		node: 'Run Flow',
		inject: [{ type: 'echo-key-stream', line: 'bad-token' }],
		sees: /^Line 2 of the stream is not valid JSON \(Unexpected token 'h'\): "\{\\"tag\\":\\"onLog\\",\\"data\\":\*\*\*\}"/,
	},
];

describe('What happens when… BotDojo quotes the API key back', () => {
	it.each(rows)('$fault ($node)', async (row) => {
		for (const { type, ...params } of row.inject) env.emu.injectFault({ type, ...params });
		logs.length = 0;
		const result = await runNode({
			node: NODES[row.node](),
			credentials: { main: { ...env.credentials.main, apiKey: HOSTILE_KEY } },
		});
		expect(whatUserSees(result)).toMatch(row.sees);
		// The answer did quote the key (the fault is real)…
		expect(env.emu.requests.at(-1)?.headers.authorization).toBe(HOSTILE_KEY);
		// …and no piece of it is shown anywhere.
		expect(keyShown(result, logs)).toEqual([]);
		expect(flowRuns(env)).toBe(0);
	});
});
