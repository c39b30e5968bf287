/* eslint-disable @n8n/community-nodes/no-restricted-globals, no-console -- benchmark code: runs in jest, never in n8n; it prints its figures */
/**
 * Remember by Key against New Session, through BotDojo Run Flow in n8n's engine (issue 19): the
 * cost of remembering must not grow with the number of keys or of items.
 *  1. One execution of ITEMS items (5,000), each a new key, against the same items in new sessions.
 *  2. MESSAGES executions of one item each (200), each a known conversation, with 10,000 keys
 *     saved, as a chat runs. As in n8n, each side's workflow has its own static data: Remember
 *     by Key's holds the map in the form the node saved it, New Session's holds nothing. Each
 *     execution parses it (n8n loads it from the database) and writes it out as JSON (n8n stores
 *     it with the execution): the figure is what Remember by Key adds, and whether it wrote.
 * The emulator runs in a child process, so the CPU measured is the client's (engine + node).
 */
import type { IDataObject } from 'n8n-workflow';

import { forgetAllSessionStores } from '../nodes/BotDojoRunFlow/helpers/rememberByKey';
import { runNode, type BotDojoCredentialData } from '../test/helpers/engine';
import { alternate, machine, report, startChildEmulator, type Sample } from './lib';

const ITEMS = Number(process.env.ITEMS ?? 5_000);
const MESSAGES = Number(process.env.MESSAGES ?? 200);
const KEYS = 10_000;
const FLOW = 'flow_echo';
const STATE = 'node:BotDojo';

type Mode = 'remember' | 'new';

function parameters(mode: Mode) {
	return {
		flowId: FLOW,
		message: '={{ $json.text }}',
		options: { streaming: false },
		...(mode === 'remember' ? { sessionMode: 'remember', sessionKey: '={{ $json.chat }}' } : {}),
	} as never;
}

async function execution(
	credentials: BotDojoCredentialData,
	mode: Mode,
	items: Array<{ json: IDataObject }>,
	staticData: IDataObject,
) {
	const { items: out, error, staticData: after } = await runNode({
		node: { type: 'botDojoRunFlow', parameters: parameters(mode) },
		credentials: { main: credentials },
		items,
		staticData,
		mode: 'webhook',
		workflowId: 'wf-bench',
	});
	if (error) throw new Error(`node run failed: ${error.message}`);
	return { out, changed: after.__dataChanged === true, after };
}

/** Part 1: one execution of ITEMS items, each a new key (a fresh process and workflow). */
async function batch(credentials: BotDojoCredentialData, mode: Mode) {
	forgetAllSessionStores();
	const items = Array.from({ length: ITEMS }, (_, i) => ({
		json: { chat: `chat-${i}`, text: `m${i}` },
	}));
	const { out } = await execution(credentials, mode, items, {});
	return { items: out.filter((item) => item.json.status === 'complete').length };
}

test(`Remember by Key: ${ITEMS} new keys in one execution, ${MESSAGES} known conversations at ${KEYS} keys`, async () => {
	const emulator = await startChildEmulator();
	try {
		const perItem = (count: number) => (sample: Sample) => sample.cpuMs / count;
		const batchPairs = await alternate(
			() => batch(emulator.credentials, 'remember'),
			() => batch(emulator.credentials, 'new'),
			{ between: () => emulator.reset() },
		);

		// Part 2: MESSAGES conversations started, then padded to KEYS saved keys.
		forgetAllSessionStores();
		const chats = Array.from({ length: MESSAGES }, (_, i) => `chat-${i}`);
		const started = await execution(
			emulator.credentials,
			'remember',
			chats.map((chat) => ({ json: { chat, text: 'hello' } })),
			{},
		);
		const sessions: IDataObject = {};
		// Saved as earlier versions wrote them (this version reads both forms), so that the
		// bench runs unchanged on the start commit too; used yesterday.
		const usedAt = Date.now() - 86_400_000;
		for (let i = MESSAGES; i < KEYS; i++) {
			sessions[`["${FLOW}","chat-${i}"]`] = { id: `ses_${i}`, usedAt };
		}
		const padded = JSON.stringify({
			[STATE]: {
				sessions: {
					...sessions,
					...Object.fromEntries(
						started.out.map((item, i) => [
							`["${FLOW}","${chats[i]}"]`,
							{ id: String(item.json.flowSessionId), usedAt },
						]),
					),
				},
			},
		});
		// One new conversation: the node saves the map in its own form, which n8n then holds.
		forgetAllSessionStores();
		const { after } = await execution(
			emulator.credentials,
			'remember',
			[{ json: { chat: 'chat-new', text: 'hello' } }],
			JSON.parse(padded) as IDataObject,
		);
		const saved = JSON.stringify(after);
		let writes = 0;
		let written = 0;
		const conversation = async (mode: Mode) => {
			let continued = 0;
			for (const chat of chats) {
				const run = await execution(
					emulator.credentials,
					mode,
					[{ json: { chat, text: 'again' } }],
					JSON.parse(mode === 'remember' ? saved : '{}') as IDataObject,
				);
				written += JSON.stringify(run.after).length;
				if (run.out[0].json.session === 'continued') continued++;
				if (run.changed) writes++;
			}
			return { continued };
		};
		// The first known message of each conversation saves today's date once: done here.
		await conversation('remember');
		writes = 0;
		const knownPairs = await alternate(
			() => conversation('remember'),
			() => conversation('new'),
		);
		console.log(
			[
				machine(),
				report(`${ITEMS} items in one execution, each a new key`, batchPairs, {
					names: { candidate: 'Remember by Key', baseline: 'New Session' },
					figures: [['CPU ms per item', perItem(ITEMS), 2]],
				}),
				'',
				report(
					`${MESSAGES} executions of one known conversation each, ${KEYS} keys saved`,
					knownPairs,
					{
						names: { candidate: 'Remember by Key', baseline: 'New Session' },
						figures: [['CPU ms per message', perItem(MESSAGES), 2]],
					},
				),
				`Executions of a known conversation that changed the static data: ${writes}`,
				`Static data of Remember by Key's workflow at ${KEYS} keys: ${(saved.length / 1e6).toFixed(2)} MB (${written} characters written in all)`,
			].join('\n'),
		);
	} finally {
		await emulator.close();
	}
});
