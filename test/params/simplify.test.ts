/**
 * Simplify on Export Requests (both operations), Trigger and Create Session: on by default from
 * node version 1.1, off at version 1 (saved workflows keep the whole record, field for field).
 */
import type { IDataObject } from 'n8n-workflow';

import { runNode, runPoll } from '../helpers/engine';
import { useEmulator } from '../helpers/emulator';

const env = useEmulator();

const FLOW = 'flow_export';
const START = Date.parse('2024-03-01T00:00:00.000Z');

/** The records as they travel over HTTP (the emulator's in-memory ones carry a symbol). */
function asSent(records: IDataObject[]): IDataObject[] {
	return JSON.parse(JSON.stringify(records)) as IDataObject[];
}

/** Two finished requests of one session: the first complete, the second failed. */
function seed(start = START): IDataObject[] {
	return asSent(
		env.emu.seedFlowRequests(FLOW, 2, {
			start,
			stepMs: 60_000,
			errorEvery: 2,
			sessionId: 'ses_row',
		}),
	);
}

/** The row Simplify makes of a seeded record, written out from the record's own fields. */
function rowOf(record: IDataObject): IDataObject {
	const failed = record.status === 'error';
	return {
		flowRequestId: record.id,
		flowId: FLOW,
		flowSessionId: 'ses_row',
		status: record.status,
		userMessage: (record.userMessage as IDataObject).content,
		answer: failed ? null : (record.response as IDataObject).text_output,
		errorMessage: failed ? 'The model provider returned an error' : null,
		startTime: record.startTime,
		endTime: record.endTime,
		durationMs: record.duration,
		modified: record.modified,
		version: '1',
	};
}

function exportNode(typeVersion: number, parameters: IDataObject = {}) {
	return {
		type: 'botDojoExportRequests',
		typeVersion,
		parameters: { operation: 'export', flowId: FLOW, returnAll: true, ...parameters } as never,
	};
}

describe('Export Requests: Simplify', () => {
	it('is on for a new node (version 1.1): one row per request, the same columns for each', async () => {
		const records = seed();
		const { items, error } = await runNode({ node: exportNode(1.1), credentials: env.credentials });
		expect(error).toBeUndefined();
		expect(items.map((item) => item.json)).toEqual(records.map(rowOf));
	});

	it('keeps the whole record at version 1 (a saved workflow), exactly as BotDojo sent it', async () => {
		const records = seed();
		const { items } = await runNode({ node: exportNode(1), credentials: env.credentials });
		expect(items.map((item) => item.json)).toEqual(records);
	});

	it.each([
		[1.1, { simplify: false }, 'whole records'],
		[1, { simplify: true }, 'rows'],
	] as const)('at version %s, %j gives %s', async (version, parameters, outcome) => {
		const records = seed();
		const { items } = await runNode({
			node: exportNode(version, parameters),
			credentials: env.credentials,
		});
		expect(items.map((item) => item.json)).toEqual(
			outcome === 'rows' ? records.map(rowOf) : records,
		);
	});

	it('adds the resume cursor to the last row', async () => {
		seed();
		const { items } = await runNode({
			node: exportNode(1.1, { options: { includeCursor: true } }),
			credentials: env.credentials,
		});
		// Everything fitted in one page: no cursor after the last request (see Include Cursor).
		expect(items.at(-1)?.json).toMatchObject({ _cursor: null, _hasMore: false, status: 'error' });
		expect(items[0].json).not.toHaveProperty('_cursor');
	});
});

describe('Export Requests › Get Many by Session: Simplify', () => {
	function sessionNode(typeVersion: number, options: IDataObject = {}) {
		return {
			type: 'botDojoExportRequests',
			typeVersion,
			parameters: {
				operation: 'getBySession',
				flowId: FLOW,
				sessionId: 'ses_row',
				sessionOptions: options,
			} as never,
		};
	}

	it('gives rows at version 1.1 and whole records at version 1', async () => {
		const records = seed();
		const simplified = await runNode({ node: sessionNode(1.1), credentials: env.credentials });
		const raw = await runNode({ node: sessionNode(1), credentials: env.credentials });
		expect(simplified.items.map((item) => item.json)).toEqual(records.map(rowOf));
		expect(raw.items.map((item) => item.json)).toEqual(records);
	});

	it('leaves As One Conversation as it is', async () => {
		seed();
		const { items } = await runNode({
			node: sessionNode(1.1, { asOneConversation: true }),
			credentials: env.credentials,
		});
		expect(items).toHaveLength(1);
		expect(Object.keys(items[0].json)).toEqual(['flowId', 'sessionId', 'messages']);
	});
});

describe('Trigger: Simplify', () => {
	function trigger(typeVersion: number) {
		return {
			type: 'botDojoTrigger',
			typeVersion,
			parameters: { flowId: FLOW, statuses: 'both' } as never,
		};
	}

	it('emits rows at version 1.1, on activation polls as in a manual run', async () => {
		const staticData: IDataObject = {};
		await runPoll({ node: trigger(1.1), credentials: env.credentials, staticData });
		const records = seed(Date.now() + 1000);
		const polled = await runPoll({ node: trigger(1.1), credentials: env.credentials, staticData });
		expect(polled.output?.[0].map((item) => item.json)).toEqual(records.map(rowOf));

		const manual = await runPoll({
			node: trigger(1.1),
			credentials: env.credentials,
			mode: 'manual',
		});
		expect(manual.output?.[0].map((item) => item.json)).toEqual([rowOf(records[1])]);
	});

	it('emits whole records at version 1', async () => {
		const records = seed();
		const { output } = await runPoll({
			node: trigger(1),
			credentials: env.credentials,
			mode: 'manual',
		});
		expect(output?.[0].map((item) => item.json)).toEqual([records[1]]);
	});
});

describe('Create Session: Simplify', () => {
	function createSession(typeVersion: number) {
		return {
			type: 'botDojoCreateSession',
			typeVersion,
			parameters: { flowId: 'flow_echo', dataMode: 'none' } as never,
		};
	}

	it('gives flowSessionId, flowId and created at version 1.1, the whole record at version 1', async () => {
		const simplified = await runNode({ node: createSession(1.1), credentials: env.credentials });
		const raw = await runNode({ node: createSession(1), credentials: env.credentials });
		const [first, second] = env.emu.requestsTo('createSession');
		expect(first.status).toBe(200);
		expect(simplified.items[0].json).toEqual({
			flowSessionId: expect.stringMatching(/\S/),
			flowId: 'flow_echo',
			created: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
		});
		expect(second.status).toBe(200);
		expect(raw.items[0].json).toMatchObject({
			id: expect.stringMatching(/\S/),
			flow_id: 'flow_echo',
			sessionState: {},
			owner_uid: expect.any(String),
		});
	});
});
