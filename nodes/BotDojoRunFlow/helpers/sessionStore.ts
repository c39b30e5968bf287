/**
 * Remember by Key: the key → BotDojo session map of one Run Flow node of one workflow.
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
 */
import type { IDataObject } from 'n8n-workflow';

import {
	SavedForm,
	keyDigest,
	nameOf,
	readSaved,
	today,
	type RememberedSession,
} from './savedSessions';

/** One conversation of one flow. */
export interface Conversation {
	flowId: string;
	key: string;
}

/** How this run's session came about; shown in the output as `session`. */
export type SessionUse = 'new' | 'continued' | 'replaced';

/** Keys kept at most; the least recently used are forgotten first. */
const MAX_REMEMBERED = 10_000;

export class SessionStore {
	/** By conversation name, in the order of use: the first entries are the least recently used. */
	private readonly sessions = new Map<string, RememberedSession>();
	/** The saved form of `sessions`, shared by the static data of every execution. */
	private readonly saved = new SavedForm();
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
	attach(staticData: IDataObject, loadedFromSaved: boolean): void {
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
		if (earlier) {
			this.markChanged(staticData);
		} else {
			Object.defineProperty(staticData, 'remembered', {
				...property,
				value: this.saved.value,
				enumerable: true,
			});
		}
	}

	/**
	 * Runs `run` with the session remembered for the conversation (none for a new one), after
	 * every earlier run of it in this process has ended, and remembers the session it used
	 * (writing into `staticData` only when the saved form changes).
	 */
	async withSession<T>(
		conversation: Conversation,
		staticData: IDataObject,
		run: (known: string | undefined) => Promise<{ result: T; sessionId?: string }>,
	): Promise<T> {
		const named = { flowId: conversation.flowId, digest: keyDigest(conversation.key) };
		const name = nameOf(named);
		const previous = this.queues.get(name) ?? Promise.resolve();
		const once = async () => {
			const { result, sessionId } = await run(this.sessions.get(name)?.id);
			if (sessionId) this.remember(named, sessionId, staticData);
			return result;
		};
		const current = previous.then(once, once);
		this.queues.set(name, current);
		try {
			return await current;
		} finally {
			if (this.queues.get(name) === current) this.queues.delete(name);
		}
	}

	forget({ flowId, key }: Conversation, staticData: IDataObject): void {
		const name = nameOf({ flowId, digest: keyDigest(key) });
		const session = this.sessions.get(name);
		if (!session) return;
		this.sessions.delete(name);
		this.unsave(session);
		this.markChanged(staticData);
	}

	/** Takes the saved sessions the process does not know, the least recently used first (by
	 *  the saved day; ties keep their order), behind those it knows, and saves them all anew. */
	private load(found: RememberedSession[]): void {
		const unknown = new Map<string, RememberedSession>();
		for (const session of found) {
			const name = nameOf(session);
			if (!this.sessions.has(name) && !unknown.has(name)) unknown.set(name, session);
		}
		const all = [...unknown].sort((a, b) => a[1].day - b[1].day).concat([...this.sessions]);
		const cut = Math.max(0, all.length - MAX_REMEMBERED);
		this.sessions.clear();
		this.saved.clear();
		for (const [name, session] of all.slice(cut)) {
			session.slot = -1;
			this.sessions.set(name, session);
			this.saved.save(session);
		}
	}

	private remember(
		named: { flowId: string; digest: string },
		id: string,
		staticData: IDataObject,
	): void {
		const name = nameOf(named);
		const known = this.sessions.get(name);
		const day = today();
		// Moved to the end: a Map keeps insertion order, so the first entry is the least used.
		this.sessions.delete(name);
		const session = known ?? { ...named, id, day, slot: -1 };
		this.sessions.set(name, session);
		// Known and used today already (as saved): nothing to save.
		if (known?.id === id && known.day >= day) return;
		session.id = id;
		session.day = day;
		this.saved.save(session);
		for (const [oldest, forgotten] of this.sessions) {
			if (this.sessions.size <= MAX_REMEMBERED) break;
			this.sessions.delete(oldest);
			this.unsave(forgotten);
		}
		this.markChanged(staticData);
	}

	private unsave(session: RememberedSession): void {
		this.saved.unsave(session, (name, slot) => {
			const moved = this.sessions.get(name);
			if (moved) moved.slot = slot;
		});
	}

	/** Assigning marks the execution's static data as changed, so that n8n saves it. */
	private markChanged(staticData: IDataObject): void {
		staticData.remembered = this.saved.value;
	}
}

/** One store per workflow and node in this process. */
const stores = new Map<string, SessionStore>();

export function sessionStoreOf(workflowId: string, nodeName: string): SessionStore {
	const name = JSON.stringify([workflowId, nodeName]);
	let store = stores.get(name);
	if (!store) {
		store = new SessionStore();
		stores.set(name, store);
	}
	return store;
}

/** What a restart of n8n does to the stores: only the saved static data remains (for tests). */
export function forgetAllSessionStores(): void {
	stores.clear();
}
