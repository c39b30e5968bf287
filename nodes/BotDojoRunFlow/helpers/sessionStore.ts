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
import { createHash } from 'crypto';
import type { IDataObject } from 'n8n-workflow';

/** One conversation of one flow. */
export interface Conversation {
	flowId: string;
	key: string;
}

interface RememberedSession {
	flowId: string;
	/** What is saved instead of the key (see keyDigest). */
	digest: string;
	id: string;
	/** Days since 1970-01-01 (UTC) of the last use that was saved. */
	day: number;
	/** Where its entry is in its flow's saved list; -1 when not saved. */
	slot: number;
}

/** How this run's session came about; shown in the output as `session`. */
export type SessionUse = 'new' | 'continued' | 'replaced';

/** Keys kept at most; the least recently used are forgotten first. */
const MAX_REMEMBERED = 10_000;

const DAY_MS = 24 * 60 * 60 * 1000;

/** Characters of a key's digest: 96 bits of SHA-256 in base64url. */
const DIGEST_LENGTH = 16;

/**
 * The saved form, in the node's static data under `remembered`: flow → a list of
 * "<key digest> <day, base 36> <session id>". n8n parses, copies and writes the whole static data
 * several times per execution; a list of short strings costs it a fraction of an object with one
 * property per key (10,000 keys: 0.8 ms against 7.8 ms per parse, in Node 20; docs/chat-memory.md).
 * Earlier versions saved flow → { key: "<day> <session>" } under `remembered`, and before that
 * `sessions`: '["<flow>","<key>"]' → { id, usedAt (ms) }; both are read once and saved anew.
 */
type SavedSessions = Record<string, string[]>;

/** A key as saved: any text of any length becomes 16 characters, and no key is saved in clear. */
export function keyDigest(key: string): string {
	return createHash('sha256').update(key).digest('base64url').slice(0, DIGEST_LENGTH);
}

function today(): number {
	return Math.floor(Date.now() / DAY_MS);
}

function emptyObject<T>(): Record<string, T> {
	return Object.create(null) as Record<string, T>;
}

/** The name of a conversation in this process (the digest has a fixed length). */
function nameOf({ flowId, digest }: { flowId: string; digest: string }): string {
	return digest + flowId;
}

function entryOf({ digest, day, id }: RememberedSession): string {
	return `${digest} ${day.toString(36)} ${id}`;
}

function objectEntries(value: unknown): Array<[string, unknown]> {
	return value && typeof value === 'object' ? Object.entries(value) : [];
}

function saved(flowId: string, digest: string, day: number, id: unknown): RememberedSession[] {
	const valid = Number.isFinite(day) && typeof id === 'string' && id !== '';
	return valid ? [{ flowId, digest, id: id as string, day, slot: -1 }] : [];
}

/** A saved list entry, or "<day> <session>" of the form before it. */
function readEntry(flowId: string, entry: unknown, key?: string): RememberedSession[] {
	if (typeof entry !== 'string') return [];
	if (key !== undefined) {
		const space = entry.indexOf(' ');
		return space > 0
			? saved(flowId, keyDigest(key), Number(entry.slice(0, space)), entry.slice(space + 1))
			: [];
	}
	const space = entry.indexOf(' ', DIGEST_LENGTH + 1);
	if (entry[DIGEST_LENGTH] !== ' ' || space < 0) return [];
	const day = parseInt(entry.slice(DIGEST_LENGTH + 1, space), 36);
	return saved(flowId, entry.slice(0, DIGEST_LENGTH), day, entry.slice(space + 1));
}

/** The sessions a static data saved, in every form, and whether any was of an earlier form. */
function readSaved(staticData: IDataObject): { found: RememberedSession[]; earlier: boolean } {
	const found: RememberedSession[] = [];
	let earlier = staticData.sessions !== undefined;
	for (const [flowId, list] of objectEntries(staticData.remembered)) {
		if (Array.isArray(list)) {
			for (const entry of list) found.push(...readEntry(flowId, entry));
			continue;
		}
		earlier = true;
		for (const [key, entry] of objectEntries(list)) found.push(...readEntry(flowId, entry, key));
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
		const day = Math.floor((Number(old?.usedAt) || 0) / DAY_MS);
		found.push(...saved(flowId, keyDigest(key), day, old?.id));
	}
	return { found, earlier };
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
		for (const flowId of Object.keys(this.saved)) delete this.saved[flowId];
		for (const [name, session] of all.slice(cut)) {
			session.slot = -1;
			this.sessions.set(name, session);
			this.save(session);
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
		this.save(session);
		for (const [oldest, forgotten] of this.sessions) {
			if (this.sessions.size <= MAX_REMEMBERED) break;
			this.sessions.delete(oldest);
			this.unsave(forgotten);
		}
		this.markChanged(staticData);
	}

	private save(session: RememberedSession): void {
		const list = (this.saved[session.flowId] ??= []);
		if (session.slot < 0) session.slot = list.push(entryOf(session)) - 1;
		else list[session.slot] = entryOf(session);
	}

	/** Takes the entry out of its list: the list's last entry moves into its slot. */
	private unsave(session: RememberedSession): void {
		const list = this.saved[session.flowId];
		const { slot } = session;
		session.slot = -1;
		if (!list || slot < 0) return;
		const last = list.pop() as string;
		if (slot < list.length) {
			list[slot] = last;
			const moved = this.sessions.get(
				nameOf({ flowId: session.flowId, digest: last.slice(0, DIGEST_LENGTH) }),
			);
			if (moved) moved.slot = slot;
		}
		if (list.length === 0) delete this.saved[session.flowId];
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
