/**
 * What a run gives n8n: its answer live (tokens forwarded where n8n streams the workflow's
 * response, canvas markup held back) and its output item (simplified, or the raw record).
 */
import {
	EVALUATION_NODE_TYPE,
	jsonParse,
	type IDataObject,
	type IExecuteFunctions,
} from 'n8n-workflow';

import { answerOfRecord, errorMessageOfRecord } from '../../shared/params/simplify';
import type { FlowRequestRecord } from '../../shared/transport/api';
import {
	agentStepsOf,
	asObject,
	stepCanvasesOf,
	toolCallsOf,
	type RunCollector,
} from './collector';
import type { RunOptions } from './runOptions';

/**
 * Where n8n streams the workflow's response; never as an AI Agent's tool (n8n runs it as the
 * type `…Tool`): the agent writes the chat, its tools must not.
 */
export function canForward(ctx: IExecuteFunctions) {
	return !ctx.getNode().type.endsWith('Tool') && ctx.isStreaming();
}

/**
 * Live forwarding (Chat Trigger, Webhook in streaming mode): `begin`, `item`s, `end`. The first
 * token goes out at once; later ones together per network read (`flush`), as n8n writes and
 * flushes every chunk (one per token made a gzip response 10× slower).
 */
export class TokenForwarder {
	/** Tokens forwarded so far. */
	sent = 0;

	private begun = false;

	/** Tokens of the current network read not sent yet. */
	private pending: string[] = [];

	constructor(
		private readonly ctx: IExecuteFunctions,
		private readonly itemIndex: number,
	) {}

	begin() {
		if (this.begun) return;
		this.begun = true;
		this.send('begin');
	}

	token(token: string) {
		this.begin();
		this.pending.push(token);
		if (this.sent === 0) this.flush();
	}

	/** Sends the tokens held since the last flush as one item. */
	flush() {
		if (this.pending.length === 0) return;
		const text = this.pending.join('');
		this.sent += this.pending.length;
		this.pending = [];
		this.send('item', text);
	}

	/** Ends the item; a run that streamed no tokens sends its whole text as one item first. */
	end(text: string) {
		this.begin();
		this.flush();
		if (this.sent === 0 && text) this.send('item', text);
		this.send('end');
	}

	error(message: string) {
		this.begin();
		this.flush();
		this.send('error', message);
	}

	private send(type: 'begin' | 'item' | 'end' | 'error', content?: string) {
		// sendChunk is declared void but is async in n8n 1.10x+: a failing sink must not fail the run.
		const sent = this.ctx.sendChunk(type, this.itemIndex, content) as unknown;
		if (sent instanceof Promise) sent.catch(() => {});
	}
}

/*
 * Canvas markup in an answer's text: `<|dojo-canvas|>…<|dojo-canvas|>` (the same tag opens and
 * closes) and a `{"canvasData": {…}}` object (BotDojo's canvases; a public BotDojo integration
 * strips both before it shows the text).
 */
const TAG = '<|dojo-canvas|>';
const OBJECT_KEY = '"canvasData"';
const OBJECT_START = /\{\s*"canvasData"\s*:/;

/** Where the text's end may be the start of markup (its length when nowhere). */
function heldFrom(text: string) {
	let from = text.length;
	const tag = text.lastIndexOf('<');
	if (tag !== -1 && text.length - tag < TAG.length && TAG.startsWith(text.slice(tag))) from = tag;
	// `"canvasData"` holds no `{`: only the last `{` can open the object, if what follows it may
	// still grow into `{"canvasData":`.
	const brace = text.lastIndexOf('{');
	const rest = text.slice(brace + 1).trimStart();
	const mayOpen =
		rest.length <= OBJECT_KEY.length
			? OBJECT_KEY.startsWith(rest)
			: rest.startsWith(OBJECT_KEY) && rest.slice(OBJECT_KEY.length).trim() === '';
	return brace !== -1 && brace < from && mayOpen ? brace : from;
}

/** A canvas as JSON when it is JSON, else its text. */
function parsed(text: string): unknown {
	return jsonParse(text.trim(), { fallbackValue: text });
}

/**
 * Takes the text in pieces, as tokens arrive, and holds back only what may still become markup:
 * a tag split across tokens never reaches the chat raw.
 */
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
	push(piece: string) {
		this.held += piece;
		let shown = '';
		for (;;) {
			if (this.inside) {
				const end = this.inside === 'tag' ? this.tagEnd() : this.objectEnd();
				if (end === -1) return shown;
				this.canvases.push(parsed(this.held.slice(0, end)));
				this.close(end + (this.inside === 'tag' ? TAG.length : 0));
				continue;
			}
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
		}
	}

	/** The end of the text: what was held as a possible start is text; unclosed markup is a canvas. */
	end() {
		const [rest, inside] = [this.held, this.inside];
		if (inside) this.canvases.push(parsed(rest));
		this.close(rest.length);
		return inside ? '' : rest;
	}

	private close(at: number) {
		this.held = this.held.slice(at);
		this.inside = undefined;
		this.depth = 0;
		this.inString = this.escaped = false;
		this.scanned = 0;
	}

	/** The index of the closing tag, or -1 while it has not come. */
	private tagEnd() {
		const end = this.held.indexOf(TAG, this.scanned);
		if (end === -1) this.scanned = Math.max(0, this.held.length - TAG.length + 1);
		return end;
	}

	/** The index after the object's closing brace, or -1 while it is open. */
	private objectEnd() {
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

/** The answer: its text, and the canvases its steps and its markup held. */
interface Answer {
	text: string;
	canvases: unknown[];
}

/**
 * The answer: the final record decides when it has one (tokens may include updates that are
 * not part of the answer); the streamed tokens are the fallback. Its canvas markup is taken
 * out of the text unless the option keeps it.
 */
export function answerOf(
	record: IDataObject,
	collector: RunCollector | undefined,
	keepCanvasMarkup: boolean,
): Answer {
	const raw = answerOfRecord(record) ?? collector?.text.toString() ?? '';
	const filter = new CanvasFilter();
	const text = filter.push(raw) + filter.end();
	const canvases = [...stepCanvasesOf(record, collector), ...filter.canvases];
	return { text: keepCanvasMarkup ? raw : text, canvases };
}

/**
 * Whether n8n's Evaluation node may read this run's `intermediateSteps`: its "Tools Used" metric
 * fails on a missing list ("Intermediate steps missing") where a flow that used no tool should
 * score 0. True in an evaluation run (the Evaluations tab runs the workflow in mode
 * `evaluation`), and when an enabled Evaluation node follows this node (a manual run of the
 * same workflow).
 */
export function evaluationReadsSteps(ctx: IExecuteFunctions) {
	if (ctx.getMode() === 'evaluation') return true;
	return ctx
		.getChildNodes(ctx.getNode().name)
		.some((node) => node.type === EVALUATION_NODE_TYPE && !node.disabled);
}

/**
 * The output item of a run. The flow or a proxy may quote the request back in any field (the
 * answer, errorMessage, logs, events): the runner redacts the API key from what leaves the node.
 */
export function outputJson(
	record: FlowRequestRecord,
	options: RunOptions,
	answer: Answer,
	collector: RunCollector | undefined,
): IDataObject {
	const toolCalls = toolCallsOf(record, collector);
	const answered: IDataObject = {
		toolCalls: toolCalls as unknown as IDataObject[],
		// An array even when empty; the simplified output leaves an empty one out unless an
		// Evaluation node may read it (options.keepEmptySteps).
		intermediateSteps: agentStepsOf(toolCalls),
	};
	if (answer.canvases.length > 0) answered.canvases = answer.canvases as IDataObject[];
	// The follow-up questions BotDojo suggests.
	const questions = asObject(record.response).suggestedQuestions ?? record.suggestedQuestions;
	if (Array.isArray(questions) && questions.length > 0) answered.suggestedQuestions = questions;
	const logs = collector && options.includeLogs ? { logs: collector.logs as IDataObject[] } : {};
	if (!options.simplify) {
		const raw: IDataObject = { ...record, ...answered };
		if (collector) raw.steps = collector.steps as IDataObject[];
		Object.assign(raw, logs);
		if (collector && options.includeEvents) raw.events = collector.events;
		return raw;
	}
	const simplified: IDataObject = {
		text: answer.text,
		flowSessionId: record.flow_session_id ?? null,
		flowRequestId: record.id ?? null,
		status: record.status ?? null,
		durationMs: record.duration ?? null,
		// Kept on node version 1, saved before durationMs: its workflows read $json.duration.
		...(options.legacyOutput ? { duration: record.duration ?? null } : {}),
		version: record.version ?? null,
		...answered,
		// Not named `error`: n8n treats an item with `error` as a failed node (Retry On Fail).
		errorMessage: errorMessageOfRecord(record),
		...logs,
	};
	if (simplified.errorMessage === undefined) delete simplified.errorMessage;
	if (options.legacyOutput) return simplified;
	// n8n's table shows an empty list as a red "[empty array]", which reads like an error.
	for (const [field, value] of Object.entries(simplified)) {
		const read = field === 'intermediateSteps' && options.keepEmptySteps;
		if (Array.isArray(value) && value.length === 0 && !read) delete simplified[field];
	}
	// A tool's Output › Selected Fields: those fields, as far as the output has them.
	const { fields } = options;
	if (!fields) return simplified;
	return Object.fromEntries(Object.entries(simplified).filter(([field]) => fields.includes(field)));
}
