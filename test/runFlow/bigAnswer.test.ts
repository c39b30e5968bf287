/**
 * BotDojo Run Flow with default options and a 2M-token answer (21 MB of text, a 44 MB final
 * result line: longer than the default Max Line Size of 16 MiB, as it repeats the answer).
 */
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

describe('BotDojo Run Flow: a 2M-token answer with default options', () => {
	it('gives the whole text, equal to the answer', async () => {
		const { items, error } = await runFlow(env, {
			parameters: { flowId: 'flow_big', inputMode: 'json', bodyJson: `{"tokens": ${TOKENS}}` },
		});
		expect(error).toBeUndefined();
		const expected = expectedText();
		expect(expected.length * 2).toBeGreaterThan(16 * 1024 * 1024);
		const text = items[0].json.text as string;
		expect(text.length).toBe(expected.length);
		expect(text === expected).toBe(true);
		expect(items[0].json.status).toBe('complete');
	}, 900_000); // no timing asserted: a 2M-token run takes 30 s alone and minutes on a busy machine
});
