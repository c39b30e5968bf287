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

/** One conversation of one flow. */
export interface Conversation {
	flowId: string;
	key: string;
}

interface RememberedSession extends Conversation {
	id: string;
	/** Days since 1970-01-01 (UTC) of the last use that was saved. */
	day: number;
}

/** How this run's session came about; shown in the output as `session`. */
export type SessionUse = 'new' | 'continued' | 'replaced';

/** Keys kept at most; the least recently used are forgotten first. */
const MAX_REMEMBERED = 10_000;

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * The saved form, in the node's static data under `remembered`: flow → key → "<day> <session>".
 * Compact (the flow once, no object per key for n8n to wrap when it loads the static data).
 * Earlier versions saved `sessions`: '["<flow>","<key>"]' → { id, usedAt (ms) }; read once.
 */
type SavedSessions = Record<string, Record<string, string>>;

function today(): number {
	return Math.floor(Date.now() / DAY_MS);
}

function emptyObject<T>(): Record<string, T> {
	return Object.create(null) as Record<string, T>;
}

function nameOf({ flowId, key }: Conversation): string {
	return JSON.stringify([flowId, key]);
}

function objectEntries(value: unknown): Array<[string, unknown]> {
	return value && typeof value === 'object' ? Object.entries(value) : [];
}

/** The sessions a static data saved, in both forms. */
function readSaved(staticData: IDataObject): RememberedSession[] {
	const found: RememberedSession[] = [];
	for (const [flowId, keys] of objectEntries(staticData.remembered)) {
		for (const [key, value] of objectEntries(keys)) {
			const space = typeof value === 'string' ? value.indexOf(' ') : -1;
			const day = Number((value as string).slice(0, space));
			const id = (value as string).slice(space + 1);
			if (space > 0 && Number.isFinite(day) && id !== '') found.push({ flowId, key, id, day });
		}
	}
	for (const [name, value] of objectEntries(staticData.sessions)) {
		const old = value as { id?: unknown; usedAt?: unknown } | null;
		let conversation: unknown;
		try {
			conversation = JSON.parse(name);
		} catch {
			continue;
		}
		const [flowId, key] = Array.isArray(conversation) ? (conversation as unknown[]) : [];
		if (typeof flowId !== 'string' || typeof key !== 'string') continue;
		if (typeof old?.id !== 'string' || old.id === '') continue;
		found.push({ flowId, key, id: old.id, day: Math.floor((Number(old.usedAt) || 0) / DAY_MS) });
	}
	return found;
}

export class SessionStore {
	/** By conversation name, in the order of use: the first entries are the least recently used. */
	private readonly sessions = new Map<string, RememberedSession>();
	/** The saved form of `sessions`, shared by the static data of every execution. */
	private readonly saved: SavedSessions = emptyObject();
	private loaded = false;
	private readonly attached = new WeakSet<IDataObject>();
	private readonly queues = new Map<string, Promise<unknown>>();

	/**
	 * Joins an execution (once for all its items). Until one that n8n loaded from the saved
	 * workflow (any but a manual one) joined, each gives the sessions it has saved and the
	 * process does not know yet; from then on the process knows them all. Every execution's
	 * static data then points to the one saved form, and the form of earlier versions is left
	 * out of what it saves, without its being marked changed (n8n observes writes and deletes,
	 * not property definitions).
	 */
	attach(staticData: IDataObject, loadedFromSaved: boolean): void {
		if (this.attached.has(staticData)) return;
		this.attached.add(staticData);
		if (!this.loaded) {
			this.loaded = loadedFromSaved;
			this.load(readSaved(staticData));
		}
		const property = { writable: true, configurable: true };
		Object.defineProperty(staticData, 'remembered', {
			...property,
			value: this.saved,
			enumerable: true,
		});
		if (staticData.sessions !== undefined) {
			Object.defineProperty(staticData, 'sessions', { ...property, enumerable: false });
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
		const name = nameOf(conversation);
		const previous = this.queues.get(name) ?? Promise.resolve();
		const once = async () => {
			const { result, sessionId } = await run(this.sessions.get(name)?.id);
			if (sessionId) this.remember(conversation, sessionId, staticData);
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

	forget(conversation: Conversation, staticData: IDataObject): void {
		const name = nameOf(conversation);
		const session = this.sessions.get(name);
		if (!session) return;
		this.sessions.delete(name);
		this.unsave(session);
		this.markChanged(staticData);
	}

	/** Takes the saved sessions the process does not know, the least recently used first (by
	 *  the saved day; ties keep their order), behind those it knows. */
	private load(found: RememberedSession[]): void {
		const unknown = new Map<string, RememberedSession>();
		for (const session of found) {
			const name = nameOf(session);
			if (!this.sessions.has(name) && !unknown.has(name)) unknown.set(name, session);
		}
		const all = [...unknown].sort((a, b) => a[1].day - b[1].day).concat([...this.sessions]);
		const cut = Math.max(0, all.length - MAX_REMEMBERED);
		this.sessions.clear();
		all.forEach(([name, session], index) => {
			if (index < cut) return this.unsave(session);
			this.sessions.set(name, session);
			this.save(session);
		});
	}

	private remember(conversation: Conversation, id: string, staticData: IDataObject): void {
		const name = nameOf(conversation);
		const known = this.sessions.get(name);
		const day = today();
		// Moved to the end: a Map keeps insertion order, so the first entry is the least used.
		this.sessions.delete(name);
		const session = known?.id === id ? known : { ...conversation, id, day };
		this.sessions.set(name, session);
		// Known and used today already (as saved): nothing to save.
		if (session === known && known.day >= day) return;
		session.day = day;
		this.save(session);
		for (const [oldest, forgotten] of this.sessions) {
			if (this.sessions.size <= MAX_REMEMBERED) break;
			this.sessions.delete(oldest);
			this.unsave(forgotten);
		}
		this.markChanged(staticData);
	}

	private save(session: RememberedSession): void {
		this.saved[session.flowId] ??= emptyObject();
		this.saved[session.flowId][session.key] = `${session.day} ${session.id}`;
	}

	private unsave({ flowId, key }: RememberedSession): void {
		const keys = this.saved[flowId];
		if (!keys) return;
		delete keys[key];
		for (const _ in keys) return;
		delete this.saved[flowId];
	}

	/** Assigning marks the execution's static data as changed, so that n8n saves it. */
	private markChanged(staticData: IDataObject): void {
		staticData.remembered = this.saved;
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
