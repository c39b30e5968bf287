/**
 * Canvas markup in an answer's text: `<|dojo-canvas|>…<|dojo-canvas|>` (the same tag opens and
 * closes) and a `{"canvasData": {…}}` object (BotDojo's canvases; a public BotDojo integration
 * strips both before it shows the text). The filter takes the text in pieces, as tokens
 * arrive, and holds back only what may still become markup: a tag split across tokens never
 * reaches the chat raw.
 */
const TAG = '<|dojo-canvas|>';
const OBJECT_KEY = '"canvasData"';
const OBJECT_START = /\{\s*"canvasData"\s*:/;

/** Whether `text` (starting with `{`) may grow into `{"canvasData":`. */
function mayOpenObject(text: string): boolean {
	const rest = text.slice(1).trimStart();
	if (rest.length <= OBJECT_KEY.length) return OBJECT_KEY.startsWith(rest);
	return rest.startsWith(OBJECT_KEY) && rest.slice(OBJECT_KEY.length).trim() === '';
}

/** Where the text's end may be the start of markup (its length when nowhere). */
function heldFrom(text: string): number {
	let from = text.length;
	const tag = text.lastIndexOf('<');
	if (tag !== -1 && text.length - tag < TAG.length && TAG.startsWith(text.slice(tag))) from = tag;
	// `"canvasData"` holds no `{`: only the last `{` can open the object.
	const brace = text.lastIndexOf('{');
	if (brace !== -1 && brace < from && mayOpenObject(text.slice(brace))) from = brace;
	return from;
}

/** A canvas as JSON when it is JSON, else its text. */
function parsed(text: string): unknown {
	try {
		return JSON.parse(text.trim());
	} catch {
		return text;
	}
}

export class CanvasFilter {
	/** The canvases found so far, parsed where JSON. */
	readonly canvases: unknown[] = [];

	/** Text not passed on yet: a possible start of markup, or the markup being read. */
	private held = '';

	private inside: 'tag' | 'object' | undefined;

	/** In an object: its brace depth, and whether the scan is inside a JSON string. */
	private depth = 0;

	private inString = false;

	private escaped = false;

	/** Where the scan of `held` goes on. */
	private scanned = 0;

	/** The text of `piece` (after what was held) that is not markup and cannot become markup. */
	push(piece: string): string {
		this.held += piece;
		let shown = '';
		for (;;) {
			if (this.inside === 'tag') {
				const end = this.held.indexOf(TAG, this.scanned);
				if (end === -1) {
					this.scanned = Math.max(0, this.held.length - TAG.length + 1);
					return shown;
				}
				this.canvases.push(parsed(this.held.slice(0, end)));
				this.close(end + TAG.length);
			} else if (this.inside === 'object') {
				const end = this.objectEnd();
				if (end === -1) return shown;
				this.canvases.push(parsed(this.held.slice(0, end)));
				this.close(end);
			} else {
				const tag = this.held.indexOf(TAG);
				const object = this.held.search(OBJECT_START);
				if (tag === -1 && object === -1) {
					const from = heldFrom(this.held);
					shown += this.held.slice(0, from);
					this.held = this.held.slice(from);
					return shown;
				}
				const isTag = tag !== -1 && (object === -1 || tag < object);
				const at = isTag ? tag : object;
				shown += this.held.slice(0, at);
				this.held = this.held.slice(isTag ? at + TAG.length : at);
				this.inside = isTag ? 'tag' : 'object';
				this.scanned = 0;
			}
		}
	}

	/** The end of the text: what was held as a possible start is text; unclosed markup is a canvas. */
	end(): string {
		if (this.inside !== undefined) {
			this.canvases.push(parsed(this.held));
			this.close(this.held.length);
			return '';
		}
		const rest = this.held;
		this.held = '';
		return rest;
	}

	private close(at: number): void {
		this.held = this.held.slice(at);
		this.inside = undefined;
		this.depth = 0;
		this.inString = false;
		this.escaped = false;
		this.scanned = 0;
	}

	/** The index after the object's closing brace, or -1 while it is open. */
	private objectEnd(): number {
		for (let i = this.scanned; i < this.held.length; i++) {
			const char = this.held[i];
			if (this.inString) {
				if (this.escaped) this.escaped = false;
				else if (char === '\\') this.escaped = true;
				else if (char === '"') this.inString = false;
			} else if (char === '"') this.inString = true;
			else if (char === '{') this.depth++;
			else if (char === '}' && --this.depth === 0) return i + 1;
		}
		this.scanned = this.held.length;
		return -1;
	}
}

/** A whole text without its canvas markup, and the canvases it held. */
export function withoutCanvases(text: string): { text: string; canvases: unknown[] } {
	const filter = new CanvasFilter();
	const shown = filter.push(text) + filter.end();
	return { text: shown, canvases: filter.canvases };
}
