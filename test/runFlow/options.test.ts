/** BotDojo Run Flow: every parameter reaches BotDojo exactly as the spec writes it; the tool variant. */
import { BotDojoRunFlow } from '../../nodes/BotDojoRunFlow/BotDojoRunFlow.node';
import { useEmulator } from '../helpers/emulator';
import { message, runBodies, runFlow } from '../helpers/runFlow';

const env = useEmulator();

describe('BotDojo Run Flow: input', () => {
	it('sends a message as { text_input }, with stream "http" and nothing else by default', async () => {
		const { items, error } = await runFlow(env, {
			parameters: message('flow_echo', '={{ $json.question }}'),
			items: [{ json: { question: 'Hello there' } }],
		});
		expect(error).toBeUndefined();
		expect(runBodies(env)).toEqual([
			{ body: { text_input: 'Hello there' }, options: { stream: 'http' } },
		]);
		expect(items[0].json.text).toBe('Echo #1: Hello there');
	});

	it('sends the message under another property when it is renamed', async () => {
		await runFlow(env, {
			parameters: message('flow_echo', 'Hi', { messageProperty: 'question' }),
		});
		expect(runBodies(env)[0].body).toEqual({ question: 'Hi' });
	});

	it('sends the JSON input as the whole body', async () => {
		const { error } = await runFlow(env, {
			parameters: {
				flowId: 'flow_echo',
				inputMode: 'json',
				bodyJson: '={{ JSON.stringify({ text_input: $json.q, lang: "de", n: 2 }) }}',
			},
			items: [{ json: { q: 'Guten Tag' } }],
		});
		expect(error).toBeUndefined();
		expect(runBodies(env)[0].body).toEqual({ text_input: 'Guten Tag', lang: 'de', n: 2 });
	});

	it('sends fields as the body, an expression keeping its type', async () => {
		await runFlow(env, {
			parameters: {
				flowId: 'flow_echo',
				inputMode: 'fields',
				bodyFields: {
					field: [
						{ name: 'text_input', value: 'Hi' },
						{ name: 'count', value: '={{ 3 }}' },
						{ name: 'tags', value: '={{ ["a", "b"] }}' },
					],
				},
			},
		});
		expect(runBodies(env)[0].body).toEqual({ text_input: 'Hi', count: 3, tags: ['a', 'b'] });
	});

	it('refuses invalid JSON before any request, naming the item', async () => {
		const { error } = await runFlow(env, {
			parameters: { flowId: 'flow_echo', inputMode: 'json', bodyJson: '={{ $json.body }}' },
			items: [{ json: { body: '{"text_input": "ok"}' } }, { json: { body: '{"text_input": ' } }],
		});
		expect(error?.message).toMatch(/^Input \(JSON\): is not valid JSON \(.+\)$/);
		expect(error?.description).toContain('safe to fix this and run again');
		expect(env.emu.requestsTo('run')).toHaveLength(0);
	});

	it('refuses an empty message and an empty flow ID before any request', async () => {
		const empty = await runFlow(env, { parameters: message('flow_echo', '') });
		expect(empty.error?.message).toBe('Message: is empty');
		expect(empty.error?.context?.itemIndex).toBe(0);
		const noFlow = await runFlow(env, { parameters: message(' ', 'Hi') });
		expect(noFlow.error?.message).toBe('Flow ID: is empty');
		expect(noFlow.error?.context?.itemIndex).toBe(0);
		expect(env.emu.requestsTo('run')).toHaveLength(0);
	});
});

describe('BotDojo Run Flow: options sent', () => {
	it('sends stream "none" explicitly when streaming is off', async () => {
		const { items } = await runFlow(env, {
			parameters: message('flow_echo', 'Hi', { options: { streaming: false } }),
		});
		expect(runBodies(env)[0].options).toEqual({ stream: 'none' });
		expect(items[0].json.text).toBe('Echo #1: Hi');
	});

	it('sends version, override and evalOptions as the spec writes them', async () => {
		const { error } = await runFlow(env, {
			parameters: message('flow_echo', 'Hi', {
				options: {
					version: '2',
					override: {
						property: [
							{ path: 'llm_1.temperature', value: '0.2' },
							{ path: 'llm_1.model', value: 'gpt-4o' },
							{ path: 'prompt_1.vars', value: '{"tone": "polite"}' },
						],
					},
					evalRunMode: 'block',
					evalRuns: {
						run: [
							{ flowEvalId: 'flow_eval_tone', externalInput: '{"expected": "polite"}' },
							{ flowEvalId: 'flow_eval_length' },
						],
					},
				},
			}),
		});
		expect(error).toBeUndefined();
		expect(runBodies(env)[0].options).toEqual({
			stream: 'http',
			version: '2',
			override: {
				'llm_1.temperature': 0.2,
				'llm_1.model': 'gpt-4o',
				'prompt_1.vars': { tone: 'polite' },
			},
			evalOptions: {
				runMode: 'block',
				runs: [
					{ flowEvalId: 'flow_eval_tone', flowEvalExternalInput: { expected: 'polite' } },
					{ flowEvalId: 'flow_eval_length' },
				],
			},
		});
		const record = [...env.emu.records.values()][0];
		expect(record.version).toBe('2');
	});

	it('sends stream_events only when the event set is narrowed (none chosen means all)', async () => {
		await runFlow(env, {
			parameters: message('flow_echo', 'Hi', { options: { events: [] } }),
		});
		await runFlow(env, {
			parameters: message('flow_echo', 'Hi', {
				options: {
					events: [
						'onLog',
						'onNewToken',
						'onIntermediateStepUpdate',
						'onFlowStart',
						'onFlowEnd',
						'onToolStart',
						'onToolEnd',
						'onToolError',
					],
				},
			}),
		});
		await runFlow(env, {
			parameters: message('flow_echo', 'Hi', {
				options: { events: ['onToolError', 'onNewToken'] },
			}),
		});
		const [none, all, narrowed] = runBodies(env);
		expect(none.options).toEqual({ stream: 'http' });
		expect(all.options).toEqual({ stream: 'http' });
		expect(narrowed.options).toEqual({
			stream: 'http',
			stream_events: ['onNewToken', 'onToolError'],
		});
	});

	it('sends only the evaluation run mode when no evaluations are listed', async () => {
		await runFlow(env, {
			parameters: message('flow_echo', 'Hi', { options: { evalRunMode: 'skip' } }),
		});
		expect(runBodies(env)[0].options).toEqual({ stream: 'http', evalOptions: { runMode: 'skip' } });
	});

	it('sends an override path named __proto__ or constructor as a key of its own', async () => {
		const { error } = await runFlow(env, {
			parameters: message('flow_echo', 'Hi', {
				options: {
					override: {
						property: [
							{ path: '__proto__', value: '1' },
							{ path: 'constructor', value: 'c' },
						],
					},
				},
			}),
		});
		expect(error).toBeUndefined();
		expect(Object.entries(runBodies(env)[0].options?.override as object)).toEqual([
			['__proto__', 1],
			['constructor', 'c'],
		]);
	});

	it('refuses an override value that looks like JSON but is not, before any request', async () => {
		const { error } = await runFlow(env, {
			parameters: message('flow_echo', 'Hi', {
				options: { override: { property: [{ path: 'llm_1.cfg', value: '{"a": ' }] } },
			}),
		});
		expect(error?.message).toMatch(
			/^Options › Override › "llm_1.cfg": looks like JSON but is not valid .*$/,
		);
		expect(env.emu.requestsTo('run')).toHaveLength(0);
	});
});

describe('BotDojo Run Flow: as an AI Agent tool', () => {
	it('is usable as a tool, with a description the agent reads, shown only in the tool', () => {
		const { description } = new BotDojoRunFlow();
		expect(description.usableAsTool).toBe(true);
		const toolDescription = description.properties.find((p) => p.name === 'toolDescription');
		expect(toolDescription).toMatchObject({ type: 'string', required: true });
		expect(toolDescription?.displayOptions).toEqual({ show: { '@tool': [true] } });
	});
});
