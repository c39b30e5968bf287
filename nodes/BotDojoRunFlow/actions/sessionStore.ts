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

interface RememberedSession {
	id: string;
	/** Days since 1970-01-01 (UTC) of the last use that was saved. */
	day: number;
}

/** How this run's session came about; shown in the output as `session`. */
export type SessionUse = 'new' | 'continued' | 'replaced';

/** Keys kept at most; the least recently used are forgotten first. */
const MAX_REMEMBERED = 10_000;

const DAY_MS = 24 * 60 * 60 * 1000;

/** Saved form, in the node's static data: entry → "<day> <session id>" (compact, and no object
 *  per entry for n8n to wrap when it loads the static data). */
type SavedSessions = Record<string, string>;

function today(): number {
	return Math.floor(Date.now() / DAY_MS);
}

function savedForm(session: RememberedSession): string {
	return `${session.day} ${session.id}`;
}

/** A saved entry: "<day> <id>", or `{ id, usedAt }` (ms) as versions before wrote it. */
function readSaved(value: unknown): RememberedSession | undefined {
	if (typeof value === 'string') {
		const space = value.indexOf(' ');
		const day = Number(value.slice(0, space));
		const id = value.slice(space + 1);
		return space > 0 && Number.isFinite(day) && id !== '' ? { id, day } : undefined;
	}
	const old = value as { id?: unknown; usedAt?: unknown } | null;
	if (old && typeof old === 'object' && typeof old.id === 'string' && old.id !== '') {
		return { id: old.id, day: Math.floor((Number(old.usedAt) || 0) / DAY_MS) };
	}
	return undefined;
}

export class SessionStore {
	/** In the order of use: the first entries are the least recently used. */
	private readonly sessions = new Map<string, RememberedSession>();
	/** The saved form of `sessions`, shared by the static data of every execution. */
	private readonly saved: SavedSessions = Object.create(null) as SavedSessions;
	private loaded = false;
	private readonly attached = new WeakSet<IDataObject>();
	private readonly queues = new Map<string, Promise<unknown>>();

	/**
	 * Joins an execution (once for all its items). Until one that n8n loaded from the saved
	 * workflow (any but a manual one) joined, each gives the keys it has saved and the process
	 * does not know yet; from then on the process knows them all. Every execution's static data
	 * then points to the one saved form, without being marked changed (n8n observes writes, not
	 * property definitions).
	 */
	attach(staticData: IDataObject, loadedFromSaved: boolean): void {
		if (this.attached.has(staticData)) return;
		this.attached.add(staticData);
		if (!this.loaded) {
			this.loaded = loadedFromSaved;
			this.load(staticData.sessions);
		}
		Object.defineProperty(staticData, 'sessions', {
			value: this.saved,
			writable: true,
			enumerable: true,
			configurable: true,
		});
	}

	/**
	 * Runs `run` with the session remembered for the entry (none for a new one), after every
	 * earlier run of the same entry in this process has ended, and remembers the session it used
	 * (writing into `staticData` only when the saved form changes).
	 */
	async withSession<T>(
		entry: string,
		staticData: IDataObject,
		run: (known: string | undefined) => Promise<{ result: T; sessionId?: string }>,
	): Promise<T> {
		const previous = this.queues.get(entry) ?? Promise.resolve();
		const once = async () => {
			const { result, sessionId } = await run(this.sessions.get(entry)?.id);
			if (sessionId) this.remember(entry, sessionId, staticData);
			return result;
		};
		const current = previous.then(once, once);
		this.queues.set(entry, current);
		try {
			return await current;
		} finally {
			if (this.queues.get(entry) === current) this.queues.delete(entry);
		}
	}

	forget(entry: string, staticData: IDataObject): void {
		if (!this.sessions.delete(entry)) return;
		delete this.saved[entry];
		this.markChanged(staticData);
	}

	/** Takes the saved entries the process does not know, the least recently used first (by the
	 *  saved day; ties keep their order), behind those it knows. */
	private load(saved: unknown): void {
		if (!saved || typeof saved !== 'object' || saved === this.saved) return;
		const entries: Array<[string, RememberedSession]> = [];
		for (const [entry, value] of Object.entries(saved as IDataObject)) {
			const session = this.sessions.has(entry) ? undefined : readSaved(value);
			if (session) entries.push([entry, session]);
		}
		entries.sort((a, b) => a[1].day - b[1].day);
		const all = [...entries, ...this.sessions];
		const cut = Math.max(0, all.length - MAX_REMEMBERED);
		this.sessions.clear();
		all.forEach(([entry, session], index) => {
			if (index < cut) {
				delete this.saved[entry];
			} else {
				this.sessions.set(entry, session);
				this.saved[entry] = savedForm(session);
			}
		});
	}

	private remember(entry: string, id: string, staticData: IDataObject): void {
		const known = this.sessions.get(entry);
		const day = today();
		// Moved to the end: a Map keeps insertion order, so the first entry is the least used.
		this.sessions.delete(entry);
		if (known?.id === id) {
			this.sessions.set(entry, known);
			// Used today already (as saved): nothing to save.
			if (known.day >= day) return;
			known.day = day;
		} else {
			this.sessions.set(entry, { id, day });
		}
		this.saved[entry] = savedForm({ id, day });
		for (const oldest of this.sessions.keys()) {
			if (this.sessions.size <= MAX_REMEMBERED) break;
			this.sessions.delete(oldest);
			delete this.saved[oldest];
		}
		this.markChanged(staticData);
	}

	/** Assigning marks the execution's static data as changed, so that n8n saves it. */
	private markChanged(staticData: IDataObject): void {
		staticData.sessions = this.saved;
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
