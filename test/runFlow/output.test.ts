/** BotDojo Run Flow: what a run outputs, by node version, Simplify and raw output; never the key. */
import { useEmulator } from '../helpers/emulator';
import { message, runFlow } from '../helpers/runFlow';

const env = useEmulator();

describe('BotDojo Run Flow: output', () => {
	it.each([
		[
			'1.1 (a node added today): no duration, no empty toolCalls or intermediateSteps',
			1.1,
			false,
		],
		['1 (saved workflows): duration and toolCalls: [] kept', 1, true],
	])('simplified output of version %s', async (_case, typeVersion, legacy) => {
		const { items } = await runFlow(env, { typeVersion, parameters: message('flow_echo', 'Hi') });
		const record = [...env.emu.records.values()][0];
		expect(items[0].json).toEqual({
			text: 'Echo #1: Hi',
			flowSessionId: record.flow_session_id,
			flowRequestId: record.id,
			status: 'complete',
			durationMs: record.duration,
			...(legacy ? { duration: record.duration } : {}),
			version: '3',
			// Version 1 keeps its empty lists; 1.1 leaves them out (n8n shows a red "[empty array]"),
			// intermediateSteps too unless an Evaluation node reads it (evaluationSteps.test.ts).
			...(legacy ? { toolCalls: [], intermediateSteps: [] } : {}),
		});
	});

	it('Simplify off and an old saved Options › Output of Raw both give the whole record', async () => {
		for (const parameters of [
			message('flow_echo', 'Hi', { simplify: false }),
			message('flow_echo', 'Hi', { options: { output: 'raw' } }),
		]) {
			env.emu.reset();
			const { items } = await runFlow(env, { parameters });
			const record = [...env.emu.records.values()][0];
			expect(items[0].json).toMatchObject({ id: record.id, response: record.response });
			expect(items[0].json).not.toHaveProperty('text');
		}
	});

	it('an old saved Options › Output of Simplified stays simplified', async () => {
		const { items } = await runFlow(env, {
			parameters: message('flow_echo', 'Hi', { options: { output: 'simplified' } }),
		});
		expect(items[0].json).toMatchObject({ text: 'Echo #1: Hi', status: 'complete' });
	});

	it('raw output is the whole record, with every event when asked', async () => {
		const { items } = await runFlow(env, {
			parameters: message('flow_echo', 'Hi', { options: { output: 'raw', includeEvents: true } }),
		});
		const record = [...env.emu.records.values()][0];
		const json = items[0].json;
		for (const [field, value] of Object.entries(record)) expect(json[field]).toEqual(value);
		const tags = (json.events as Array<{ tag: string }>).map((event) => event.tag);
		expect(tags[0]).toBe('onFlowStart');
		expect(tags.filter((tag) => tag === 'onNewToken')).toHaveLength(3);
		expect(tags[tags.length - 1]).toBe('onFlowEnd');
	});

	it('raw output without streaming is the record BotDojo answered', async () => {
		const { items } = await runFlow(env, {
			parameters: message('flow_echo', 'Hi', { options: { output: 'raw', streaming: false } }),
		});
		const record = [...env.emu.records.values()][0];
		expect(items[0].json).toEqual({
			...JSON.parse(JSON.stringify(record)),
			toolCalls: [],
			intermediateSteps: [],
		});
	});

	it('never puts the API key in the output or in an error', async () => {
		const ok = await runFlow(env, {
			parameters: message('flow_tools', 'Hi', {
				options: { output: 'raw', includeEvents: true, includeLogs: true },
			}),
		});
		env.emu.injectFault('500', { endpoint: 'run' });
		const failed = await runFlow(env, { parameters: message('flow_echo', 'Hi') });
		const wrongKey = await runFlow(env, {
			parameters: message('flow_echo', 'Hi'),
			credentialId: 'wrong',
		});
		expect(failed.error).toBeDefined();
		expect(wrongKey.error?.message).toMatch(/rejected the API key/);
		const seen = JSON.stringify([ok.items, failed.error, wrongKey.error, failed.run.data]);
		expect(seen).not.toContain(env.credentials.main.apiKey);
		expect(seen).not.toContain(env.credentials.wrong.apiKey);
		// ...while the key did reach BotDojo in the Authorization header, raw.
		expect(env.emu.requestsTo('run')[0].headers.authorization).toBe(env.credentials.main.apiKey);
	});
});
