/**
 * docs/troubleshooting.md, Never reached the flow: BotDojo or a proxy before it refuses the
 * request itself (400, 413 body too large, 414 address too long, 431 request line or headers
 * too long). Nothing ran, so Run Flow says retrying is safe; the key is never shown.
 */
import { useEmulator } from '../helpers/emulator';
import { flowRuns, MAY_HAVE_RUN, statusesOf, whatUserSees } from '../helpers/faults';
import { runNode } from '../helpers/engine';
import { captureLogs, HOSTILE_KEY, keyShown } from '../helpers/keyLeaks';
import { message } from '../helpers/runFlow';

const env = useEmulator();
const logs = captureLogs();

const rows = [
	{ status: 400, sees: /^BotDojo refused the request as invalid: Bad request$/ },
	{ status: 413, sees: /^The request was too large .*\(413: the body is too large\)$/ },
	{ status: 414, sees: /^The request was too large .*\(414: the address is too long\)$/ },
	{
		status: 431,
		sees: /^The request was too large .*\(431: the request line or headers are too long\)$/,
	},
];

describe('What happens when… the request never reaches the flow', () => {
	it.each(rows)('$status', async (row) => {
		env.emu.injectFault(String(row.status), { endpoint: 'run', times: 5 });
		logs.length = 0;
		// A proxy answers before BotDojo checks the key: any key meets the fault.
		const result = await runNode({
			node: { type: 'botDojoRunFlow', parameters: message('flow_echo', 'Hi') },
			credentials: { main: { ...env.credentials.main, apiKey: HOSTILE_KEY } },
		});
		expect(result.error?.message).toMatch(row.sees);
		const seen = whatUserSees(result);
		expect(seen).toMatch(/Safe to retry: BotDojo did not run anything/);
		expect(seen).not.toMatch(MAY_HAVE_RUN);
		expect(statusesOf(env, 'run')).toEqual([row.status]);
		expect(keyShown(result, logs)).toEqual([]);
		expect(flowRuns(env)).toBe(0);
	});
});
