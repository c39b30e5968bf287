/**
 * BotDojo Run Flow with default options and a 2M-token answer (21 MB of text, a 44 MB final
 * result: longer than the default Largest Stream Line of 16 MiB, as it repeats the answer),
 * streamed, not streamed, and streamed but answered whole by BotDojo.
 */
import type { INodeParameters } from 'n8n-workflow';

import { OPTION_NAMES } from '../../nodes/BotDojoRunFlow/helpers/runOptions';
import { useEmulator } from '../helpers/emulator';
import { runFlow } from '../helpers/runFlow';

const env = useEmulator();

const TOKENS = 2_000_000;

/** flow_big's answer, written out independently of the emulator. */
function expectedText(): string {
	const parts: string[] = [];
	for (let i = 0; i < TOKENS; i++) parts.push(`tok${String(i).padStart(6, '0')} `);
	return parts.join('');
}

const big = (tokens: number, options: INodeParameters = {}): INodeParameters => ({
	flowId: 'flow_big',
	inputMode: 'json',
	bodyJson: `{"tokens": ${tokens}}`,
	options,
});

describe('BotDojo Run Flow: a 2M-token answer with default options', () => {
	// no timing asserted: a 2M-token run takes 30 s alone and minutes on a busy machine
	it.each<[string, INodeParameters, boolean]>([
		['streamed', {}, false],
		['not streamed (Streaming off)', { streaming: false }, false],
		['streamed, but BotDojo answers the whole record', {}, true],
	])(
		'%s: gives the whole text, equal to the answer',
		async (_name, options, whole) => {
			if (whole) env.emu.injectFault('whole-answer', { endpoint: 'run' });
			const { items, error } = await runFlow(env, { parameters: big(TOKENS, options) });
			expect(error).toBeUndefined();
			const expected = expectedText();
			expect(expected.length * 2).toBeGreaterThan(16 * 1024 * 1024);
			const text = items[0].json.text as string;
			expect(text.length).toBe(expected.length);
			expect(text === expected).toBe(true);
			expect(items[0].json.status).toBe('complete');
			expect(env.emu.requestsTo('run')[0].body.options.stream).toBe(
				options.streaming === false ? 'none' : 'http',
			);
		},
		900_000,
	);

	it('a whole answer over three times Max Stream Line is refused, naming the limit', async () => {
		env.emu.injectFault('whole-answer', { endpoint: 'run' });
		const { error } = await runFlow(env, { parameters: big(200_000, { maxLineMiB: 1 }) });
		expect(error?.message).toBe(
			`BotDojo's whole answer is longer than 3145728 characters (three times ${OPTION_NAMES.maxLineMiB}) and was refused rather than held in memory`,
		);
		expect(error?.description).toMatch(/Raise the option/);
		expect(env.emu.requestsTo('run')).toHaveLength(1);
	});
});
