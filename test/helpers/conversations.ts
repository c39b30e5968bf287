/** Shared by the tests that hold many conversations at once (Remember by Key, Chat Memory). */
import type { IDataObject } from 'n8n-workflow';

import type { EmulatorFixture } from './emulator';
import { runBodies } from './runFlow';

/** Twenty conversation names: enough for every execution of a round to overlap. */
export const chats = Array.from({ length: 20 }, (_, i) => `chat-${i}`);

/**
 * Defines `flow_chat` in beforeAll: it answers `Echo #<run of the session>: <text>`, slowly
 * enough that all the executions of one round are running at the same time.
 */
export function useChatFlow(env: EmulatorFixture): void {
	beforeAll(() => {
		env.emu.defineFlow('flow_chat', {
			delayMs: 50,
			answer: (body, session) => `Echo #${session.runNumber}: ${String(body.text_input)}`,
		});
	});
}

/** The session each run request named, by the text it sent (undefined: a new session). */
export function sessionsSent(env: EmulatorFixture): Map<string, string | undefined> {
	return new Map(
		runBodies(env).map(({ body, options }) => [
			String(body.text_input),
			options?.flow_session_id as string | undefined,
		]),
	);
}

/**
 * What a static data saved for a flow under Remember by Key, in the order saved: key digest →
 * "<day> <session id>" (saved as one text of lines "<digest> <day, base 36> <session id>").
 */
export function savedEntries(staticData: IDataObject, flowId: string): Map<string, string> {
	const node = staticData['node:BotDojo'] as IDataObject | undefined;
	const text = (node?.remembered as IDataObject | undefined)?.[flowId] ?? '';
	expect(typeof text).toBe('string');
	const lines = (text as string) === '' ? [] : (text as string).split('\n');
	return new Map(
		lines.map((line) => {
			const [digest, day, ...id] = line.split(' ');
			return [digest, `${parseInt(day, 36)} ${id.join(' ')}`];
		}),
	);
}
