/** BotDojo Run Flow: several items, at once or one by one; Continue On Fail. */
import { credentialReads } from '../helpers/additionalData';
import { useEmulator } from '../helpers/emulator';
import { message, runBodies, runFlow } from '../helpers/runFlow';

const env = useEmulator();

/** The most run requests the emulator was handling at the same time. */
function mostAtOnce(): number {
	const moments = env.emu
		.requestsTo('run')
		.flatMap((request) => [
			[request.receivedAt, 1],
			[request.respondedAt ?? Infinity, -1],
		])
		.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
	let open = 0;
	let most = 0;
	for (const [, change] of moments) {
		open += change;
		most = Math.max(most, open);
	}
	return most;
}

const questions = Array.from({ length: 8 }, (_, i) => ({ json: { q: `question ${i}` } }));

describe('BotDojo Run Flow: concurrency', () => {
	it.each([
		['streamed', true],
		['blocking', false],
	])('%s runs: output order is input order and pairedItem is right', async (_name, streaming) => {
		const { items, error } = await runFlow(env, {
			parameters: message('flow_delay50', '={{ $json.q }}', {
				options: { concurrency: 4, streaming },
			}),
			items: questions,
		});
		expect(error).toBeUndefined();
		const records = [...env.emu.records.values()];
		expect(items.map((item) => item.json.flowRequestId)).toEqual(
			questions.map(({ json }) => records.find((r) => r.body.text_input === json.q)?.id),
		);
		expect(items.map((item) => item.pairedItem)).toEqual(questions.map((_, item) => ({ item })));
		const atOnce = mostAtOnce();
		expect(atOnce).toBeGreaterThan(1);
		expect(atOnce).toBeLessThanOrEqual(4);
	});

	it.each([
		['streamed', true],
		['blocking', false],
	])(
		'%s runs read the credential once per execution, not once per request',
		async (_n, streaming) => {
			const before = credentialReads.count;
			const { items, error } = await runFlow(env, {
				parameters: message('flow_delay50', '={{ $json.q }}', {
					options: { concurrency: 4, streaming },
				}),
				items: questions,
			});
			expect(error).toBeUndefined();
			expect(items).toHaveLength(8);
			expect(env.emu.requestsTo('run')).toHaveLength(8);
			expect(credentialReads.count - before).toBe(1);
		},
	);

	it('runs one item at a time by default', async () => {
		await runFlow(env, {
			parameters: message('flow_delay50', '={{ $json.q }}'),
			items: questions.slice(0, 4),
		});
		expect(runBodies(env).map((body) => body.body.text_input)).toEqual([
			'question 0',
			'question 1',
			'question 2',
			'question 3',
		]);
		expect(mostAtOnce()).toBe(1);
	});
});

describe('BotDojo Run Flow: Continue On Fail', () => {
	const mixed = [
		{ json: { flow: 'flow_echo', body: '{"text_input": "first"}' } },
		{ json: { flow: 'flow_echo', body: '{"text_input": ' } },
		{ json: { flow: 'flow_nope', body: '{"text_input": "lost"}' } },
		{ json: { flow: 'flow_error', body: '{"text_input": "fails"}' } },
		{ json: { flow: 'flow_echo', body: '{"text_input": "last"}' } },
	];
	const parameters = {
		flowId: '={{ $json.flow }}',
		inputMode: 'json',
		bodyJson: '={{ $json.body }}',
	};

	it.each([1, 3])(
		'keeps every other item, each with its pairedItem (concurrency %i)',
		async (c) => {
			const { items, error } = await runFlow(env, {
				parameters: { ...parameters, options: { concurrency: c } },
				items: mixed,
				continueOnFail: true,
			});
			expect(error).toBeUndefined();
			expect(items.map((item) => item.pairedItem)).toEqual(mixed.map((_, item) => ({ item })));
			const [first, invalid, missing, failed, last] = items.map((item) => item.json);
			expect(first.text).toBe('Echo #1: first');
			expect(invalid.error).toMatch(/^Input \(JSON\): is not valid JSON .*$/);
			expect(missing.error).toMatch(/could not find it: Flow 'flow_nope' not found/);
			expect(missing.description).toContain('Safe to retry');
			expect(failed.error).toBe('The flow reported an error: The model provider returned an error');
			expect(failed.description).toMatch(/Not safe to retry blindly/);
			expect(last.text).toBe('Echo #1: last');
			// The invalid item was never sent.
			expect(
				runBodies(env)
					.map((body) => body.body.text_input)
					.sort(),
			).toEqual(['fails', 'first', 'last', 'lost'].sort());
		},
	);

	it('without Continue On Fail, an invalid item stops the node before any request', async () => {
		const { error } = await runFlow(env, { parameters, items: mixed });
		expect(error?.message).toMatch(/^Input \(JSON\): is not valid JSON/);
		expect(error?.context?.itemIndex).toBe(1);
		expect(env.emu.requestsTo('run')).toHaveLength(0);
	});

	it('without Continue On Fail, a failing run stops the items after it', async () => {
		const { error } = await runFlow(env, {
			parameters: message('={{ $json.flow }}', 'Hi'),
			items: [
				{ json: { flow: 'flow_echo' } },
				{ json: { flow: 'flow_nope' } },
				{ json: { flow: 'flow_echo' } },
			],
		});
		expect(error?.message).toMatch(/Flow 'flow_nope' not found/);
		expect(env.emu.requestsTo('run')).toHaveLength(2);
	});
});
