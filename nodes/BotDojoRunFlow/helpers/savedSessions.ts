/**
 * Remember by Key's map as the workflow's static data saves it, under `remembered`: flow → one
 * text of lines "<key digest> <day, base 36> <session id>".
 *
 * Why one text: n8n handles the whole static data several times for every execution of the
 * workflow, known conversation or not. It parses it from the database, wraps every object and
 * array in it in a Proxy (walking all their properties), and writes it out through those
 * proxies with the execution. One text per flow is a single value for all of that; an object
 * or list of 10,000 entries costs one proxied read per entry (see docs/chat-memory.md).
 * The text is built when it is read (a getter, which JSON.stringify and n8n's copies call),
 * once per change, so 5,000 new keys in one execution do not build it 5,000 times.
 *
 * The key is saved as 96 bits of its SHA-256 (16 characters): no key is saved in clear, and a
 * key of any length costs the same. Earlier versions saved flow → { key: "<day> <session>" }
 * under `remembered`, and before that `sessions`: '["<flow>","<key>"]' → { id, usedAt (ms) }.
 */
import { createHash } from 'crypto';
import type { IDataObject } from 'n8n-workflow';

export interface RememberedSession {
	flowId: string;
	/** What is saved instead of the key (see keyDigest). */
	digest: string;
	id: string;
	/** Days since 1970-01-01 (UTC) of the last use that was saved. */
	day: number;
	/** Where its line is in its flow's saved lines; -1 when not saved. */
	slot: number;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** Characters of a key's digest: 96 bits of SHA-256 in base64url. */
const DIGEST_LENGTH = 16;

export function today(): number {
	return Math.floor(Date.now() / DAY_MS);
}

/** A key as saved: any text of any length becomes 16 characters. */
export function keyDigest(key: string): string {
	return createHash('sha256').update(key).digest('base64url').slice(0, DIGEST_LENGTH);
}

/** The name of a conversation in this process (the digest has a fixed length). */
export function nameOf({ flowId, digest }: { flowId: string; digest: string }): string {
	return digest + flowId;
}

export function emptyObject<T>(): Record<string, T> {
	return Object.create(null) as Record<string, T>;
}

function objectEntries(value: unknown): Array<[string, unknown]> {
	return value && typeof value === 'object' ? Object.entries(value) : [];
}

function session(flowId: string, digest: string, day: number, id: unknown): RememberedSession[] {
	const valid = Number.isFinite(day) && typeof id === 'string' && id !== '';
	return valid ? [{ flowId, digest, id: id as string, day, slot: -1 }] : [];
}

/** A saved line, or "<day> <session>" of the form before it (then the key is given). */
function readLine(flowId: string, line: unknown, key?: string): RememberedSession[] {
	if (typeof line !== 'string') return [];
	if (key !== undefined) {
		const space = line.indexOf(' ');
		if (space <= 0) return [];
		return session(flowId, keyDigest(key), Number(line.slice(0, space)), line.slice(space + 1));
	}
	const space = line.indexOf(' ', DIGEST_LENGTH + 1);
	if (line[DIGEST_LENGTH] !== ' ' || space < 0) return [];
	const day = parseInt(line.slice(DIGEST_LENGTH + 1, space), 36);
	return session(flowId, line.slice(0, DIGEST_LENGTH), day, line.slice(space + 1));
}

/** The sessions a static data saved, in every form, and whether any was of an earlier form. */
export function readSaved(staticData: IDataObject): {
	found: RememberedSession[];
	earlier: boolean;
} {
	const found: RememberedSession[] = [];
	let earlier = staticData.sessions !== undefined;
	for (const [flowId, text] of objectEntries(staticData.remembered)) {
		if (typeof text === 'string') {
			for (const line of text.split('\n')) found.push(...readLine(flowId, line));
			continue;
		}
		earlier = true;
		for (const [key, line] of objectEntries(text)) found.push(...readLine(flowId, line, key));
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
		found.push(...session(flowId, keyDigest(key), day, old?.id));
	}
	return { found, earlier };
}

/** The saved form of one store: `value` is what every execution's static data points to. */
export class SavedForm {
	/** flow → its text, read through a getter that builds it after a change. */
	readonly value: Record<string, string> = emptyObject();
	private readonly lines = new Map<string, string[]>();
	private readonly texts = new Map<string, string>();

	clear(): void {
		for (const flowId of this.lines.keys()) delete this.value[flowId];
		this.lines.clear();
		this.texts.clear();
	}

	save(saved: RememberedSession): void {
		// A line cannot hold a line break: such a session stays in the process only.
		if (saved.id.includes('\n')) return;
		const line = `${saved.digest} ${saved.day.toString(36)} ${saved.id}`;
		const lines = this.linesOf(saved.flowId);
		if (saved.slot < 0) saved.slot = lines.push(line) - 1;
		else lines[saved.slot] = line;
		this.texts.delete(saved.flowId);
	}

	/** Takes its line out: the flow's last line moves into its slot (`moved` is told where). */
	unsave(saved: RememberedSession, moved: (name: string, slot: number) => void): void {
		const lines = this.lines.get(saved.flowId);
		const { slot } = saved;
		saved.slot = -1;
		if (!lines || slot < 0) return;
		const last = lines.pop() as string;
		if (slot < lines.length) {
			lines[slot] = last;
			moved(nameOf({ flowId: saved.flowId, digest: last.slice(0, DIGEST_LENGTH) }), slot);
		}
		this.texts.delete(saved.flowId);
		if (lines.length > 0) return;
		this.lines.delete(saved.flowId);
		delete this.value[saved.flowId];
	}

	private linesOf(flowId: string): string[] {
		let lines = this.lines.get(flowId);
		if (lines) return lines;
		lines = [];
		this.lines.set(flowId, lines);
		const build = () => {
			let text = this.texts.get(flowId);
			if (text === undefined) {
				text = (this.lines.get(flowId) ?? []).join('\n');
				this.texts.set(flowId, text);
			}
			return text;
		};
		Object.defineProperty(this.value, flowId, { get: build, enumerable: true, configurable: true });
		return lines;
	}
}
