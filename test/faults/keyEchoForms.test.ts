/**
 * docs/troubleshooting.md, Key echoed, in the forms a server or proxy re-encodes it:
 * URL-encoded, base64 (a Basic header), `\u`-escaped, upper-cased, wrapped over two lines; and
 * on every output Run Flow offers for a flow's error (Output the Record, Include Logs, Include
 * Events, Simplify on and off). Each row checks that no piece of the key is shown anywhere,
 * in any of those forms: output, error and its details, execution data, logs.
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

const FORMS = ['url', 'base64', 'unicode', 'upper', 'wrapped'] as const;

/** Every output of a run whose flow reports an error: the record, its logs and events. */
const OUTPUT_THE_RECORD = { onFlowError: 'output', includeLogs: true, includeEvents: true };

const NODES = {
	'Query Index': () => ({
		type: 'botDojoQueryIndex',
		parameters: { operation: 'getStatus', indexId: 'idx_docs' },
	}),
	'Run Flow (blocking)': () => ({
		type: 'botDojoRunFlow',
		parameters: message('flow_echo', 'Hi', { options: { streaming: false } }),
	}),
	'Run Flow, Output the Record': (parameters: INodeParameters = {}) => ({
		type: 'botDojoRunFlow',
		typeVersion: 1.1,
		parameters: message('flow_echo', 'Hi', { options: OUTPUT_THE_RECORD, ...parameters }),
	}),
};

interface Row {
	fault: string;
	node: keyof typeof NODES;
	parameters?: INodeParameters;
	inject: { type: FaultType } & FaultParams;
	/** What the user reads: the error (message and description) or the output item. */
	sees: RegExp;
}

const rows: Row[] = [
	...FORMS.flatMap((form): Row[] => [
		{
			fault: `error body quotes the key ${form} (401)`,
			node: 'Query Index',
			inject: { type: 'echo-key', form },
			sees: /rejected the API key \(401\)[\s\S]*BotDojo said: "[^"]*\*\*\*/,
		},
		{
			fault: `wrong-shaped answer quotes the key ${form}`,
			node: 'Run Flow (blocking)',
			inject: { type: 'echo-key-answer', form },
			sees: /expected a flow request record \(an object\), got \[\{"echo":"[^"]*\*\*\*/,
		},
		{
			fault: `flow error and log quote the key ${form}, Output the Record`,
			node: 'Run Flow, Output the Record',
			inject: { type: 'echo-key-stream', form },
			sees: /"errorMessage":"The flow failed\. [^"]*\*\*\*"[\s\S]*"logs":\[/,
		},
	]),
	{
		fault: 'flow error and log quote the key, Output the Record, Simplify on',
		node: 'Run Flow, Output the Record',
		inject: { type: 'echo-key-stream' },
		sees: /"errorMessage":"The flow failed\. Authorization: \*\*\*"[\s\S]*"logs":\[\{[^\]]*"message":"Authorization: \*\*\*"/,
	},
	{
		fault: 'flow error and log quote the key JSON-escaped, Output the Record, Simplify off',
		node: 'Run Flow, Output the Record',
		parameters: { simplify: false },
		inject: { type: 'echo-key-stream', form: 'escaped' },
		sees: /"error":"The flow failed\. Request was \{\\"headers\\":\{\\"authorization\\":\\"\*\*\*\\"\}\}"[\s\S]*"logs":\[/,
	},
];

describe('What happens when… BotDojo quotes the API key back re-encoded, or on the output', () => {
	it.each(rows)('$fault ($node)', async (row) => {
		const { type, ...params } = row.inject;
		env.emu.injectFault({ type, ...params });
		logs.length = 0;
		const result = await runNode({
			node: NODES[row.node](row.parameters),
			credentials: { main: { ...env.credentials.main, apiKey: HOSTILE_KEY } },
		});
		const seen = result.error ? whatUserSees(result) : JSON.stringify(result.items[0]?.json);
		expect(seen).toMatch(row.sees);
		// The answer did quote the key (the fault is real)…
		expect(env.emu.requests.at(-1)?.headers.authorization).toBe(HOSTILE_KEY);
		// …and no piece of it is shown anywhere, in any form.
		expect(keyShown(result, logs)).toEqual([]);
		expect(flowRuns(env)).toBe(0);
	});
});
