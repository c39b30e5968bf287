/**
 * Session "Remember by Key": a run in the BotDojo session remembered for a key, and the key →
 * session map of one Run Flow node of one workflow.
 *
 * n8n gives each execution its own copy of the workflow's static data and saves it when the
 * execution ends (the last one to end wins), so a map kept only there loses the keys of
 * overlapping executions. Module state, in contrast, is shared by every execution of one n8n
 * process. So the process keeps one store per workflow and node as the source of truth (read
 * from the saved static data once, after a restart), runs the messages of one key one after
 * another (two first messages end on one session), and keeps ONE saved form that the static
 * data of every execution points to: whichever execution saves last saves every mapping.
 *
 * n8n saves the whole static data after an execution that wrote anything into it. So a message
 * of a known conversation writes nothing: its use is kept in the process, and in the saved form
 * only as the day it was last used, rewritten at most once a day. A new conversation, a replaced
 * session or a forgotten key writes one entry and marks the execution's static data changed:
 * the cost of a message does not grow with the number of keys or of items.
 *
 * The saved form, under `remembered`: flow → one text of lines "<key digest> <day, base 36>
 * <session id>". One text, because n8n handles the whole static data several times for every
 * execution (parsed from the database, every object and array wrapped in a Proxy, written out
 * through those proxies): one text per flow is a single value for all of that, where an object
 * of 10,000 entries costs one proxied read per entry (see docs/chat-memory.md). The text is
 * built when it is read (a getter, which JSON.stringify and n8n's copies call), once per change.
 * The key is saved as 96 bits of its SHA-256 (16 characters): no key is saved in clear, and a
 * key of any length costs the same. Earlier versions saved flow → { key: "<day> <session>" }
 * under `remembered`, and before that `sessions`: '["<flow>","<key>"]' → { id, usedAt (ms) }.
 *
 * The map is only right where one process writes it and sees what it saved: a regular-mode n8n.
 * A queue-mode worker sees neither (a webhook or chat execution starts from the static data the
 * main stored with it, and every worker keeps its own map in memory and saves over the others'),
 * so a worker would continue the older session it used itself. It refuses instead, naming Keep
 * in Chat Memory.
 */
import { createHash } from 'crypto';
import {
	jsonParse,
	NodeApiError,
	NodeOperationError,
	type IDataObject,
	type IExecuteFunctions,
} from 'n8n-workflow';

import { asNodeError } from '../../shared/itemErrors';
import type { RunIn, RunOutcome } from './flowRun';

/** How this run's session came about; shown in the output as `session`. */
type SessionUse = 'new' | 'continued' | 'replaced';

/** One conversation of one flow, as this process names it. */
interface Named {
	flowId: string;
	/** What is saved instead of the key (see keyDigest). */
	digest: string;
}

interface RememberedSession extends Named {
	id: string;
	/** Days since 1970-01-01 (UTC) of the last use that was saved. */
	day: number;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** Keys kept at most; the least recently used are forgotten first. */
const MAX_REMEMBERED = 10_000;

/** A key as saved: any text of any length becomes 16 characters. */
export function keyDigest(key: string) {
	return createHash('sha256').update(key).digest('base64url').slice(0, 16);
}

/** The name of a conversation in this process (the digest has a fixed length). */
const nameOf = ({ flowId, digest }: Named) => digest + flowId;

function entriesOf(value: unknown): Array<[string, unknown]> {
	return value && typeof value === 'object' ? Object.entries(value) : [];
}

/** The sessions a static data saved, in every form, and whether any was of an earlier form. */
function readSaved(staticData: IDataObject) {
	const found: RememberedSession[] = [];
	const add = (flowId: string, digest: string, day: number, id: unknown) => {
		if (Number.isFinite(day) && typeof id === 'string' && id !== '') {
			found.push({ flowId, digest, id, day });
		}
	};
	let earlier = staticData.sessions !== undefined;
	for (const [flowId, saved] of entriesOf(staticData.remembered)) {
		if (typeof saved === 'string') {
			for (const line of saved.split('\n')) {
				const [, digest, day, id] = /^(.{16}) ([^ ]*) (.*)$/s.exec(line) ?? [];
				if (digest) add(flowId, digest, parseInt(day, 36), id);
			}
			continue;
		}
		earlier = true;
		for (const [key, line] of entriesOf(saved)) {
			const [, day, id] = /^([^ ]+) (.*)$/s.exec(typeof line === 'string' ? line : '') ?? [];
			if (day) add(flowId, keyDigest(key), Number(day), id);
		}
	}
	for (const [name, value] of entriesOf(staticData.sessions)) {
		const old = value as { id?: unknown; usedAt?: unknown } | null;
		const conversation = jsonParse<unknown>(name, { fallbackValue: [] });
		const [flowId, key] = Array.isArray(conversation) ? conversation : [];
		if (typeof flowId !== 'string' || typeof key !== 'string') continue;
		add(flowId, keyDigest(key), Math.floor((Number(old?.usedAt) || 0) / DAY_MS), old?.id);
	}
	return { found, earlier };
}

class SessionStore {
	/** By conversation name, in the order of use: the first entries are the least recently used. */
	private readonly sessions = new Map<string, RememberedSession>();
	/**
	 * The saved form of `sessions`, shared by the static data of every execution: flow → its
	 * text, read through a getter that builds it after a change (and keeps it until the next).
	 */
	private readonly saved = Object.create(null) as Record<string, string>;
	private readonly texts = new Map<string, string>();
	private loaded = false;
	private readonly attached = new WeakSet<IDataObject>();
	private readonly queues = new Map<string, Promise<unknown>>();

	/**
	 * Joins an execution (once for all its items). Until one that n8n loaded from the saved
	 * workflow (any but a manual one) joined, each gives the sessions it has saved and the
	 * process does not know yet; from then on the process knows them all. Every execution's
	 * static data then points to the one saved form. A saved form of earlier versions marks the
	 * static data changed, so that n8n saves it anew once; the oldest one (`sessions`) is left
	 * out of what it saves (n8n observes writes and deletes, not property definitions).
	 */
	attach(staticData: IDataObject, loadedFromSaved: boolean) {
		if (this.attached.has(staticData)) return;
		this.attached.add(staticData);
		let earlier = false;
		if (!this.loaded) {
			this.loaded = loadedFromSaved;
			const read = readSaved(staticData);
			earlier = read.earlier;
			this.load(read.found);
		}
		const property = { writable: true, configurable: true };
		if (staticData.sessions !== undefined) {
			Object.defineProperty(staticData, 'sessions', { ...property, enumerable: false });
		}
		if (earlier) this.markChanged(staticData);
		else {
			Object.defineProperty(staticData, 'remembered', {
				...property,
				value: this.saved,
				enumerable: true,
			});
		}
	}

	/**
	 * Runs `run` with the session remembered for the conversation (none for a new one), after
	 * every earlier run of it in this process has ended, and remembers the session it used
	 * (writing into `staticData` only when the saved form changes).
	 */
	async withSession(named: Named, staticData: IDataObject, run: RunIn) {
		const name = nameOf(named);
		const once = async () => {
			const outcome = await run(this.sessions.get(name)?.id);
			if (outcome.sessionId) this.remember(named, outcome.sessionId, staticData);
			return outcome;
		};
		const current = (this.queues.get(name) ?? Promise.resolve()).then(once, once);
		this.queues.set(name, current);
		try {
			return await current;
		} finally {
			if (this.queues.get(name) === current) this.queues.delete(name);
		}
	}

	forget(named: Named, staticData: IDataObject) {
		if (!this.sessions.delete(nameOf(named))) return;
		this.changed(named.flowId, true);
		this.markChanged(staticData);
	}

	/** Takes the saved sessions the process does not know, the least recently used first (by
	 *  the saved day; ties keep their order), behind those it knows, and saves them all anew. */
	private load(found: RememberedSession[]) {
		const unknown = new Map<string, RememberedSession>();
		for (const session of found) {
			const name = nameOf(session);
			if (!this.sessions.has(name) && !unknown.has(name)) unknown.set(name, session);
		}
		const all = [...unknown].sort((a, b) => a[1].day - b[1].day).concat([...this.sessions]);
		this.sessions.clear();
		for (const flowId of Object.keys(this.saved)) this.changed(flowId, true);
		for (const [name, session] of all.slice(Math.max(0, all.length - MAX_REMEMBERED))) {
			this.sessions.set(name, session);
			this.changed(session.flowId);
		}
	}

	private remember(named: Named, id: string, staticData: IDataObject) {
		const name = nameOf(named);
		const known = this.sessions.get(name);
		const day = Math.floor(Date.now() / DAY_MS);
		// Moved to the end: a Map keeps insertion order, so the first entry is the least used.
		this.sessions.delete(name);
		const session = known ?? { ...named, id, day };
		this.sessions.set(name, session);
		// Known and used today already (as saved): nothing to save.
		if (known?.id === id && known.day >= day) return;
		session.id = id;
		session.day = day;
		this.changed(session.flowId);
		for (const [oldest, forgotten] of this.sessions) {
			if (this.sessions.size <= MAX_REMEMBERED) break;
			this.sessions.delete(oldest);
			this.changed(forgotten.flowId, true);
		}
		this.markChanged(staticData);
	}

	/** The flow's saved text is built anew when next read; a flow without sessions has none. */
	private changed(flowId: string, removed = false) {
		this.texts.delete(flowId);
		if (removed) {
			for (const session of this.sessions.values()) if (session.flowId === flowId) return;
			delete this.saved[flowId];
			return;
		}
		if (flowId in this.saved) return;
		const build = () => {
			let text = this.texts.get(flowId);
			if (text === undefined) {
				text = [...this.sessions.values()]
					// A line cannot hold a line break: such a session stays in the process only.
					.filter((session) => session.flowId === flowId && !session.id.includes('\n'))
					.map(({ digest, day, id }) => `${digest} ${day.toString(36)} ${id}`)
					.join('\n');
				this.texts.set(flowId, text);
			}
			return text;
		};
		Object.defineProperty(this.saved, flowId, { get: build, enumerable: true, configurable: true });
	}

	/** Assigning marks the execution's static data as changed, so that n8n saves it. */
	private markChanged(staticData: IDataObject) {
		staticData.remembered = this.saved;
	}
}

/** One store per workflow and node in this process. */
const stores = new Map<string, SessionStore>();

/** What a restart of n8n does to the stores: only the saved static data remains (for tests). */
export function forgetAllSessionStores() {
	stores.clear();
}

/**
 * Refuses Remember by Key on a queue-mode worker, before any request. n8n-core's execution
 * contexts carry n8n's InstanceSettings, whose instanceType is 'worker' in `n8n worker` (not part
 * of the typed interface; a context without it is taken to be a regular n8n).
 */
export function assertRememberedMapVisible(ctx: IExecuteFunctions, itemIndex: number) {
	const { instanceSettings } = ctx as unknown as { instanceSettings?: { instanceType?: unknown } };
	if (instanceSettings?.instanceType !== 'worker') return;
	throw new NodeOperationError(
		ctx.getNode(),
		'Session: Remember by Key cannot be used on a queue-mode worker. Choose Keep in Chat Memory',
		{
			itemIndex,
			description:
				'This execution ran on an n8n worker (queue mode). Workers do not see the conversations that other workers saved, so a conversation could start over or continue an older BotDojo session. Choose Session: Keep in Chat Memory and connect a Redis Chat Memory or Postgres Chat Memory, which every worker reaches. Nothing was sent to BotDojo.',
		},
	);
}

/**
 * Runs in session `known` (none: a new one) and says in the output's `session` how the session
 * came about. When BotDojo refuses the session (Remember by Key's or Keep in Chat Memory's) it
 * refused it while loading the run request, before the flow ran: only then is the run started
 * again, once, in the session `replace` gives. The refusal is BotDojo's own words (not the
 * node's, nor what they quote, such as the user's message in a flow's error after it ran),
 * beginning with "Error loading session", on any error status.
 */
export async function runInSession(
	ctx: IExecuteFunctions,
	itemIndex: number,
	known: { id?: string; use: SessionUse },
	runIn: RunIn,
	replace: () => Promise<string | undefined>,
): Promise<RunOutcome> {
	let use = known.use;
	let outcome: RunOutcome;
	try {
		outcome = await runIn(known.id);
	} catch (error) {
		// BotDojo refused the session before any flow ran (the transport marks its error so).
		const refused = error instanceof NodeApiError && error.context.sessionRefused === true;
		if (!known.id || !refused) throw asNodeError(ctx, error, itemIndex);
		use = 'replaced';
		outcome = await runIn(await replace());
	}
	return { ...outcome, json: { ...outcome.json, session: use } };
}

/** Runs `runIn` in the session remembered for the flow's `key` (or a new one). */
export async function runRemembered(
	ctx: IExecuteFunctions,
	itemIndex: number,
	flowId: string,
	key: string,
	runIn: RunIn,
) {
	const named = { flowId, digest: keyDigest(key) };
	const storeName = JSON.stringify([ctx.getWorkflow().id ?? '', ctx.getNode().name]);
	const store = stores.get(storeName) ?? new SessionStore();
	stores.set(storeName, store);
	const staticData = ctx.getWorkflowStaticData('node');
	// A manual execution's static data may not be what n8n saved last.
	store.attach(staticData, ctx.getMode() !== 'manual');
	return await store.withSession(
		named,
		staticData,
		async (id) =>
			await runInSession(ctx, itemIndex, { id, use: id ? 'continued' : 'new' }, runIn, async () => {
				store.forget(named, staticData);
				return undefined;
			}),
	);
}
