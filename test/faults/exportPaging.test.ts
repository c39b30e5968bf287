/**
 * docs/troubleshooting.md, Export paging: BotDojo's pages stop making progress. The export
 * stops with a clear error instead of looping or returning duplicates; no flow runs.
 */
import { runNode } from '../helpers/engine';
import { useEmulator } from '../helpers/emulator';
import { flowRuns, whatUserSees } from '../helpers/faults';

const env = useEmulator();

const FLOW = 'flow_export';

const rows = [
	{
		fault: 'repeated cursor',
		// The first faulty answer points back to the start; the second repeats that cursor.
		inject: 'same-cursor',
		times: 2,
		pageSize: 10,
		sees: /export of flow "flow_export" stopped making progress on page 2: .*cursor it had already sent/,
		pagesAsked: 2,
	},
	{
		fault: 'more-with-empty-page',
		inject: 'empty-page',
		times: 5,
		pageSize: undefined,
		sees: /stopped making progress on page 1: .*empty page/,
		pagesAsked: 1,
	},
];

describe('What happens when… export pages stop making progress', () => {
	it.each(rows)('$fault', async (row) => {
		env.emu.seedFlowRequests(FLOW, 50, { start: Date.parse('2024-03-01T00:00:00.000Z') });
		const recordsBefore = flowRuns(env);
		env.emu.injectFault(row.inject, { endpoint: 'export', times: row.times });
		const result = await runNode({
			node: {
				type: 'botDojoExportRequests',
				parameters: {
					operation: 'export',
					flowId: FLOW,
					returnAll: true,
					options: row.pageSize ? { pageSize: row.pageSize } : {},
				},
			},
			credentials: env.credentials,
		});
		expect(result.error?.message).toMatch(row.sees);
		expect(whatUserSees(result)).toMatch(row.sees);
		expect(result.items).toEqual([]);
		expect(env.emu.requestsTo('export')).toHaveLength(row.pagesAsked);
		expect(flowRuns(env)).toBe(recordsBefore);
	});
});
