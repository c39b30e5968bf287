/**
 * Remember by Key: the key → BotDojo session map of one Run Flow node of one workflow.
 *
 * n8n gives each execution its own copy of the workflow's static data and saves it when the
 * execution ends (the last one to end wins), so a map kept only there loses the keys of
 * overlapping executions. Module state, in contrast, is shared by every execution of one n8n
 * process. So the process keeps one store per workflow and node as the source of truth, runs
 * the messages of one key one after another (two first messages end on one session), and writes
 * the whole map into the static data of every execution that may still save it: whichever saves
 * last saves every mapping, and a restarted process reads them back from there.
 */
import type { IDataObject } from 'n8n-workflow';

interface RememberedSession {
	id: string;
	usedAt: number;
}

/** How this run's session came about; shown in the output as `session`. */
export type SessionUse = 'new' | 'continued' | 'replaced';

/** Keys kept at most; the least recently used are forgotten first. */
const MAX_REMEMBERED = 10_000;

function isRemembered(value: unknown): value is RememberedSession {
	return (
		!!value && typeof value === 'object' && typeof (value as RememberedSession).id === 'string'
	);
}

export class SessionStore {
	private readonly sessions = new Map<string, RememberedSession>();
	private readonly queues = new Map<string, Promise<unknown>>();
	/** The node's static data of executions that may still save (dropped once collected). */
	private readonly savers = new Set<WeakRef<IDataObject>>();

	/** Joins an execution: takes the keys its saved data has and the process does not know yet. */
	attach(staticData: IDataObject): void {
		const saved = staticData.sessions;
		if (saved && typeof saved === 'object') {
			for (const [entry, session] of Object.entries(saved as IDataObject)) {
				if (!this.sessions.has(entry) && isRemembered(session)) {
					this.sessions.set(entry, { id: session.id, usedAt: Number(session.usedAt) || 0 });
				}
			}
		}
		this.savers.add(new WeakRef(staticData));
	}

	/**
	 * Runs `run` with the session remembered for the entry (none for a new one), after every
	 * earlier run of the same entry in this process has ended, and remembers the session it used.
	 */
	async withSession<T>(
		entry: string,
		run: (known: string | undefined) => Promise<{ result: T; sessionId?: string }>,
	): Promise<T> {
		const previous = this.queues.get(entry) ?? Promise.resolve();
		const once = async () => {
			const { result, sessionId } = await run(this.sessions.get(entry)?.id);
			if (sessionId) this.remember(entry, sessionId);
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

	forget(entry: string): void {
		if (this.sessions.delete(entry)) this.writeToSavers();
	}

	private remember(entry: string, id: string): void {
		this.sessions.delete(entry);
		// A Map keeps insertion order: the first entries are the least recently used.
		this.sessions.set(entry, { id, usedAt: Date.now() });
		for (const oldest of this.sessions.keys()) {
			if (this.sessions.size <= MAX_REMEMBERED) break;
			this.sessions.delete(oldest);
		}
		this.writeToSavers();
	}

	private writeToSavers(): void {
		const map: IDataObject = {};
		for (const [entry, session] of this.sessions) map[entry] = { ...session };
		for (const ref of this.savers) {
			const staticData = ref.deref();
			// Assigning marks the execution's static data as changed, so that n8n saves it.
			if (staticData) staticData.sessions = map;
			else this.savers.delete(ref);
		}
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
