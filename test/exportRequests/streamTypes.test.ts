/**
 * Issue 13 §6: records that mention the SDK's other stream types (job, realtime) come out of the
 * export as they are; the nodes never refuse them.
 */
import { useEmulator } from '../helpers/emulator';
import { runNode } from '../helpers/engine';

const env = useEmulator();

it('Export Requests outputs records run with stream job or realtime unchanged', async () => {
	for (const stream of ['job', 'realtime']) {
		env.emu.addRecord({ flow_id: 'flow_echo', requestParams: { stream } });
	}
	const { items, error } = await runNode({
		node: {
			type: 'botDojoExportRequests',
			parameters: {
				operation: 'export',
				flowId: 'flow_echo',
				returnAll: true,
				simplify: false,
			} as never,
		},
		credentials: env.credentials,
	});
	expect(error).toBeUndefined();
	expect(
		items.map((item) => (item.json.requestParams as { stream: string }).stream).sort(),
	).toEqual(['job', 'realtime']);
});
