/* eslint-disable @n8n/community-nodes/no-restricted-globals -- test code: runs in jest, never in n8n */
/**
 * docs/troubleshooting.md, Setup: a Base URL that cannot be used, and n8n's Stop button.
 * (A worker that crashes in queue mode is measured in test/e2e-queue/run.js.)
 */
import { baseUrlProblem } from '../../nodes/shared/transport/project';
import { runNode, startRun, type RunResult } from '../helpers/engine';
import { useEmulator } from '../helpers/emulator';
import { flowRuns, MAY_HAVE_RUN, whatUserSees } from '../helpers/faults';
import { message, startFlow } from '../helpers/runFlow';
import { until } from '../helpers/until';

const env = useEmulator();

const nodes = {
	'Query Index': {
		type: 'botDojoQueryIndex',
		parameters: { operation: 'getStatus', indexId: 'idx_docs' },
	},
	'Run Flow': { type: 'botDojoRunFlow', parameters: message('flow_echo', 'Hi') },
};

describe('What happens when… the Base URL of the credential cannot be used', () => {
	it.each([
		[
			'without a scheme',
			'Query Index' as const,
			(url: string) => url.replace(/^https?:\/\//, ''),
			/does not start with https:\/\//,
		],
		[
			'without a scheme',
			'Run Flow' as const,
			(url: string) => url.replace(/^https?:\/\//, ''),
			/does not start with https:\/\//,
		],
		['empty', 'Query Index' as const, () => '  ', /is empty/],
		[
			'with http:// to another machine',
			'Run Flow' as const,
			() => 'http://api.botdojo.com/api/v1',
			/"http:\/\/api\.botdojo\.com\/api\/v1" starts with http:\/\/, which would send the API key unencrypted: use https:\/\//,
		],
		[
			// Would reach the emulator on 127.0.0.1, were it not refused.
			'with http:// to a host that only looks local',
			'Query Index' as const,
			(url: string) => url.replace('http://', 'http://user@'),
			/starts with http:\/\/, which would send the API key unencrypted/,
		],
		['not an address', 'Query Index' as const, () => 'https://', /is not a valid address/],
	])(
		'refuses one %s (%s), naming the field, and sends nothing',
		async (_kind, node, change, problem) => {
			const result = await runNode({
				node: nodes[node],
				credentials: {
					main: { ...env.credentials.main, baseUrl: change(env.credentials.main.baseUrl) },
				},
			});
			expect(result.error?.message).toMatch(/^The Base URL of the BotDojo API credential /);
			expect(result.error?.message).toMatch(problem);
			expect(result.error?.description).toMatch(
				/e\.g\. https:\/\/api\.botdojo\.com\/api\/v1\. No request was sent\./,
			);
			expect(whatUserSees(result)).not.toMatch(MAY_HAVE_RUN);
			expect(env.emu.requests).toHaveLength(0);
			expect(flowRuns(env)).toBe(0);
		},
	);
});

describe('What happens when… the API Key of the credential has a length no BotDojo key has', () => {
	const keyOf = (length: number) => `bdk_${'9Zq'.repeat(length)}`.slice(0, length);
	it.each([
		['too short', 'Query Index' as const, 11],
		['too long', 'Run Flow' as const, 1025],
		// Long enough that a pattern built from it would fail to compile (and first block n8n).
		['far too long', 'Query Index' as const, 2000],
		['far too long', 'Run Flow' as const, 2048],
	])(
		'refuses one %s (%s, %i characters) without showing it, and sends nothing',
		async (_, node, length) => {
			const apiKey = keyOf(length);
			const result = await runNode({
				node: nodes[node],
				credentials: { main: { ...env.credentials.main, apiKey } },
			});
			const which = length < 12 ? 'short' : 'long';
			expect(result.error?.message).toBe(
				`The API Key of the BotDojo API credential has ${length} characters, too ${which} to be a BotDojo API key (12 to 1024)`,
			);
			expect(result.error?.description).toMatch(
				/Project Settings → API Keys.*No request was sent\./,
			);
			expect(JSON.stringify(result)).not.toContain(apiKey.slice(0, 11));
			expect(env.emu.requests).toHaveLength(0);
			expect(flowRuns(env)).toBe(0);
		},
	);
});

describe('http:// in the Base URL', () => {
	it.each([
		'http://localhost:8080/api/v1',
		'http://127.0.0.1/api/v1',
		'http://127.4.5.6:1',
		'http://[::1]:80/x',
		'HTTP://LOCALHOST',
		'https://api.botdojo.com/api/v1',
		'https://10.0.0.1',
	])('is accepted for this computer and https:// everywhere (%s)', (url) =>
		expect(baseUrlProblem(url)).toBeUndefined(),
	);

	it.each([
		'http://api.botdojo.com/api/v1',
		'http://localhost.example.com',
		'http://127.0.0.1.example.com/',
		'http://127.0.0.1@example.com',
		'http://10.0.0.1:8080',
		'http://[::2]/',
	])('is refused for any other host (%s)', (url) =>
		expect(baseUrlProblem(url)).toMatch(
			/starts with http:\/\/, which would send the API key unencrypted/,
		),
	);
});

/** Presses Stop once `ready` holds and `settleMs` more have passed. */
async function stopWhen(
	run: ReturnType<typeof startRun>,
	ready: () => boolean,
	settleMs: number,
): Promise<RunResult> {
	await until(ready);
	await new Promise((resolve) => setTimeout(resolve, settleMs));
	run.cancel();
	return await run.result;
}

describe("What happens when… the user presses n8n's Stop button", () => {
	it.each([
		{
			when: 'while the stream is being read',
			// Stopped at the first live chunk, long before flow_slow's ten tokens are written.
			start: () => {
				let chunked = false;
				const run = startFlow(env, {
					parameters: message('flow_slow', 'Hi'),
					streaming: true,
					onChunk: (chunk) => {
						if (chunk.type === 'item') chunked = true;
					},
				});
				return { run, ready: () => chunked, settleMs: 0 };
			},
			message: /^The run was canceled while its stream was being read; \d+ events? had arrived$/,
			// The flow ran, and had not finished writing when the connection closed.
			flowRan: 1,
			recordStatus: 'running',
		},
		{
			when: "while waiting out BotDojo's Retry-After",
			// A wait far longer than the test may take: only an aborted wait lets the node end.
			start: () => {
				env.emu.injectFault('429;retryAfter=600', { endpoint: 'run', times: 10 });
				const run = startFlow(env, {
					parameters: message('flow_echo', 'Hi', { options: { maxRetryWait: 1000 } }),
				});
				// Once the 429 was answered and read, the node is waiting for the Retry-After.
				return {
					run,
					ready: () => env.emu.requestsTo('run')[0]?.respondedAt !== undefined,
					settleMs: 100,
				};
			},
			message: /^The run was canceled before BotDojo answered$/,
			flowRan: 0,
			recordStatus: undefined,
		},
	])('$when', async (row) => {
		const { run, ready, settleMs } = row.start();
		const result = await stopWhen(run, ready, settleMs);
		expect(result.run.status).toBe('canceled');
		// The node itself ended (it did not go on in the background).
		expect(result.error?.message).toMatch(row.message);
		const requests = env.emu.requestsTo('run');
		expect(requests).toHaveLength(1);
		await until(() => requests[0].respondedAt !== undefined);
		expect(flowRuns(env)).toBe(row.flowRan);
		expect([...env.emu.records.values()][0]?.status).toBe(row.recordStatus);
		expect(result.chunks.filter(({ chunk }) => chunk.type === 'item').length).toBeLessThan(10);
	});
});

describe('What happens when… the user presses Stop on the other nodes', () => {
	const others = [
		{
			node: 'Export Requests',
			type: 'botDojoExportRequests',
			parameters: { operation: 'export', flowId: 'flow_export' },
			endpoint: 'export' as const,
		},
		{
			node: 'Query Index',
			type: 'botDojoQueryIndex',
			parameters: { operation: 'queryMetadata', indexId: 'idx_docs', query: '{}' },
			endpoint: 'queryMetadata' as const,
		},
		{
			node: 'Create Session',
			type: 'botDojoCreateSession',
			parameters: { flowId: 'flow_echo' },
			endpoint: 'createSession' as const,
		},
	];
	const moments = [
		// BotDojo never answers: only a request that Stop aborts lets the node end.
		{ when: 'during a request', fault: 'stall', settleMs: 50 },
		// Half the answer came, then nothing: the node reads it from the stream, and Stop ends that.
		{ when: 'while its answer arrives', fault: 'whole-answer-stall', settleMs: 100 },
		// Within the default bounds of these nodes' retries (60 s in all), long enough that a
		// wait that Stop did not end is seen sending again or running past the test's time.
		{ when: "while waiting out BotDojo's Retry-After", fault: '429;retryAfter=55', settleMs: 100 },
	];
	it.each(others.flatMap((other) => moments.map((moment) => ({ ...other, ...moment }))))(
		'$node, $when',
		async (row) => {
			env.emu.injectFault(row.fault, { endpoint: row.endpoint, times: 10 });
			const run = startRun({
				node: { type: row.type, parameters: row.parameters as never },
				credentials: env.credentials,
			});
			const requests = () => env.emu.requestsTo(row.endpoint);
			const ready =
				row.fault !== '429;retryAfter=55'
					? () => requests().length === 1
					: () => requests()[0]?.respondedAt !== undefined;
			const result = await stopWhen(run, ready, row.settleMs);
			expect(result.run.status).toBe('canceled');
			expect(result.error?.message).toBe('The request to BotDojo was canceled');
			expect(JSON.stringify(result.error)).not.toContain(env.credentials.main.apiKey);
			expect(requests()).toHaveLength(1);
			// The node hung up: the emulator saw the stalled request end.
			await until(() => requests()[0].respondedAt !== undefined);
		},
	);
});
