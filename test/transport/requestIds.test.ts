/**
 * A 404 names the id BotDojo said it could not find (issue 34, "one id table"): every kind of
 * `project.ts` REQUEST_IDS names its node field, and a kind a request carries without a row (a
 * subject held in a variable, which TypeScript does not check for extra keys) still names itself
 * rather than blaming the Flow ID.
 */
import { apiError } from '../../nodes/shared/transport/errors';
import { REQUEST_IDS, type RequestSubject } from '../../nodes/shared/transport/project';
import { fakeContext } from '../helpers/fakeContext';

const { ctx } = fakeContext();
const credentials = {
	baseUrl: 'https://api.botdojo.com/api/v1',
	accountId: 'acc_1',
	projectId: 'proj_1',
	apiKey: 'key-1234567890',
};

function notFound(subject: Record<string, string>, said: string) {
	return apiError(
		ctx,
		404,
		{ error: { message: said } },
		credentials,
		{ subject },
		{ attempts: 1 },
	);
}

describe('the ids a 404 names', () => {
	it.each(Object.entries(REQUEST_IDS))('%s: "Check the <field> in the node"', (key, { field }) => {
		// The flow is in every subject, as it is in every request that names another id.
		const subject: RequestSubject = { flowId: 'flow_1', [key]: 'the_missing_id' };
		const error = notFound(subject, "Item 'the_missing_id' not found");
		expect(error.description).toBe(`Check the ${field} in the node ("the_missing_id").`);
	});

	it('a kind without a row names itself, not the Flow ID', () => {
		const subject = { flowId: 'flow_1', requestId: 'req_9' };
		const error = notFound(subject, "Flow request 'req_9' not found in flow 'flow_1'");
		expect(error.description).toBe('Check the requestId in the node ("req_9").');
	});

	it('a 404 that names no id lists every id used, a kind without a row included', () => {
		const error = notFound({ flowId: 'flow_1', requestId: 'req_9' }, 'Not found');
		expect(error.description).toBe(
			'One of these does not exist or is not visible to this key: account "acc_1", project "proj_1", flow "flow_1", requestId "req_9". Check the ids in the node and in the credential.',
		);
	});
});
