/**
 * What happens when… a positional answer stops halfway: the node reads every JSON answer from
 * the response stream itself (transport/request.ts readWithin), so a connection dropped mid-answer is a
 * clear error and never half an answer (a file export: exportFile.test.ts), and a Stop
 * (setup.test.ts) or the request's timeout ends the read.
 */
import { runNode } from '../helpers/engine';
import { useEmulator } from '../helpers/emulator';
import { exportRequestsNode } from '../helpers/exportRequestsNode';

const env = useEmulator();

const FLOW = 'flow_export';
const BROKE = 'The connection to BotDojo broke before its whole answer had arrived';

describe('What happens when… an answer stops halfway', () => {
	it('Export Requests: a page dropped halfway fails the node with the broken connection, no items', async () => {
		env.emu.seedFlowRequests(FLOW, 300, { start: Date.parse('2024-03-01T00:00:00Z') });
		env.emu.injectFault('whole-answer-drop', { endpoint: 'export', skip: 1 });
		const { items, error } = await runNode({
			node: exportRequestsNode(FLOW, { returnAll: true, options: { pageSize: 100 } }),
			credentials: env.credentials,
		});
		expect(items).toEqual([]);
		expect(error?.message).toBe(BROKE);
		expect(JSON.stringify(error)).not.toContain(env.credentials.main.apiKey);
		// Nothing is retried on its own: the second page was asked for once.
		expect(env.emu.requestsTo('export')).toHaveLength(2);
	});

	it('Query Index: an answer dropped halfway is the same error, not half an answer', async () => {
		env.emu.injectFault('whole-answer-drop', { endpoint: 'getStatus' });
		const { items, error } = await runNode({
			node: {
				type: 'botDojoQueryIndex',
				parameters: { operation: 'getStatus', indexId: 'idx_docs' } as never,
			},
			credentials: env.credentials,
		});
		expect(items).toEqual([]);
		expect(error?.message).toBe(BROKE);
	});
});
