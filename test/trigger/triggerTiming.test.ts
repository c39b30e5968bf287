/**
 * BotDojo Trigger against a slow or stalling BotDojo: n8n starts a poll on every tick even while
 * the previous one runs, and gives a poll a budget. Each request still fires exactly once: polls
 * of one trigger never overlap, a poll ends within its budget with what it read, and the next
 * poll (also after a restart) goes on from there.
 */
import type { IDataObject } from 'n8n-workflow';

import { emittedIds } from '../helpers/engine';
import { until } from '../helpers/until';
import { READ_BOUNDS } from '../../nodes/shared/transport/request';
import { useScriptedServer, type Answer } from '../transport/scriptedServer';
import {
	answerPages,
	cursorOf,
	pollScripted,
	recordText,
	type ScriptedPages,
} from './scriptedExport';

const botdojo = useScriptedServer();

/** A budget of 6 s: a poll reads for 3 s at most (half of it). */
const BUDGET_MS = 6000;

const shippedLimits = { ...READ_BOUNDS };
beforeAll(() => {
	// So that before the poll had a deadline, a stalled page failed the test within 20 s.
	READ_BOUNDS.statusMs = 20_000;
});
afterAll(() => Object.assign(READ_BOUNDS, shippedLimits));
beforeEach(() => {
	botdojo.requests.length = 0;
});

/** The trigger activated on an empty flow: its state as n8n saved it then. */
async function activated(): Promise<IDataObject> {
	const staticData: IDataObject = {};
	botdojo.answer = answerPages({});
	expect((await pollScripted(botdojo, staticData)).output).toBeNull();
	expect(botdojo.requests).toEqual([]);
	return staticData;
}

/** Four requests finished after activation, on two pages (after cursor `c1`). */
function twoPages(): ScriptedPages {
	const now = Date.now();
	const [one, two, three, four] = [1, 2, 3, 4].map((n) => recordText(`req_${n}`, now + n));
	return { '': { records: [one, two], next: 'c1' }, c1: { records: [three, four] } };
}

/** `answer`, except that the first request after `cursor` never gets an answer. */
function stallingOnce(cursor: string, answer: Answer): Answer {
	let stalled = false;
	return async (request, res) => {
		if (stalled || cursorOf(request) !== cursor) return await answer(request, res);
		stalled = true;
		await new Promise((resolve) => res.once('close', resolve));
	};
}

/** The static data as n8n keeps it in its database: JSON. */
function asSaved(staticData: IDataObject): IDataObject {
	return JSON.parse(JSON.stringify(staticData)) as IDataObject;
}

describe('BotDojo Trigger: exactly once, whatever the timing', () => {
	it('two overlapping polls against a slow BotDojo emit each request once in total', async () => {
		const staticData = await activated();
		const now = Date.now();
		let answerNow = () => {};
		const slow = new Promise<void>((resolve) => (answerNow = resolve));
		const page = answerPages({
			'': { records: [recordText('req_1', now), recordText('req_2', now + 1)] },
		});
		botdojo.answer = async (request, res) => {
			await slow;
			await page(request, res);
		};
		const first = pollScripted(botdojo, staticData);
		await until(() => botdojo.requests.length === 1);
		// n8n's next tick, while the first poll still waits for BotDojo.
		let secondEnded = false;
		const second = pollScripted(botdojo, staticData).finally(() => (secondEnded = true));
		await until(() => secondEnded || botdojo.requests.length === 2);
		answerNow();
		const polls = await Promise.all([first, second]);
		expect(polls.flatMap((poll) => emittedIds(poll.output))).toEqual(['req_1', 'req_2']);
		expect(botdojo.requests).toHaveLength(1);
		// The next poll reads again (the first one ended) and finds nothing new.
		expect((await pollScripted(botdojo, staticData)).output).toBeNull();
		expect(botdojo.requests).toHaveLength(2);
	});

	it('a page that never comes ends the poll within its budget with what it read; the next poll goes on after it', async () => {
		const staticData = await activated();
		botdojo.answer = stallingOnce('c1', answerPages(twoPages()));
		const cut = await pollScripted(botdojo, staticData, BUDGET_MS);
		expect(emittedIds(cut.output)).toEqual(['req_1', 'req_2']);
		const next = await pollScripted(botdojo, staticData, BUDGET_MS);
		expect(emittedIds(next.output)).toEqual(['req_3', 'req_4']);
		expect((await pollScripted(botdojo, staticData, BUDGET_MS)).output).toBeNull();
		// The second poll asked after c1 (not from the start); the third read from the mark.
		expect(botdojo.requests.map(cursorOf)).toEqual(['', 'c1', 'c1', '', 'c1']);
	});

	it('a first page that never comes fails the poll within its budget, in words; the next poll reads it all', async () => {
		const staticData = await activated();
		botdojo.answer = stallingOnce('', answerPages(twoPages()));
		await expect(pollScripted(botdojo, staticData, BUDGET_MS)).rejects.toThrow(
			`BotDojo's export of flow "flow_watch" did not answer within the poll's 3 s`,
		);
		const next = await pollScripted(botdojo, staticData, BUDGET_MS);
		expect(emittedIds(next.output)).toEqual(['req_1', 'req_2', 'req_3', 'req_4']);
	});

	it('a restart between polls, with the state n8n saved when each poll emitted, fires each request once', async () => {
		// n8n saves the static data on activation and when a poll emits; a restart reads it back.
		let saved = asSaved(await activated());
		botdojo.answer = stallingOnce('c1', answerPages(twoPages()));
		const emitted: unknown[] = [];
		for (let poll = 0; poll < 3; poll++) {
			const staticData = asSaved(saved);
			const { output } = await pollScripted(botdojo, staticData, BUDGET_MS);
			emitted.push(...emittedIds(output));
			if (output !== null) saved = asSaved(staticData);
		}
		expect(emitted).toEqual(['req_1', 'req_2', 'req_3', 'req_4']);
	});
});
