/**
 * What the events of a run become: answer tokens → text, tool-argument tokens, tool
 * start/end/error and tool steps → toolCalls, intermediate steps → steps, logs → logs (when
 * asked for), and optionally every event, under the tag it arrived with. The flow's start and
 * end (onFlowStart/End, or the SDK's onFlowRequestStart/End) are only kept among the events.
 */
import type { IDataObject } from 'n8n-workflow';

import { joinedPieces as rope } from '../../shared/transport/ndjson';

import { asObject, firstDefined, StepToolCalls, type ToolCall } from './toolCalls';

/**
 * Joins many small strings without a rope of one node per token: tokens are joined in
 * batches, so the memory held stays close to the size of the text itself.
 */
export class TextCollector {
	private batch: string[] = [];

	private joined: string[] = [];

	count = 0;

	add(text: string): void {
		this.batch.push(text);
		this.count++;
		if (this.batch.length === 2048) {
			this.joined.push(this.batch.join(''));
			this.batch = [];
		}
	}

	/** The text so far, in parts (not joined: joining would copy it). */
	parts(): readonly string[] {
		if (this.batch.length > 0) {
			this.joined.push(this.batch.join(''));
			this.batch = [];
		}
		return this.joined;
	}

	/** The whole text, as a rope (not a copy). */
	toString(): string {
		return rope(this.parts());
	}
}

export class RunCollector {
	readonly text = new TextCollector();

	readonly toolCalls: ToolCall[] = [];

	readonly steps: unknown[] = [];

	/** Tool calls told by onIntermediateStepUpdate steps. */
	readonly stepToolCalls = new StepToolCalls();

	readonly logs: unknown[] = [];

	readonly events: IDataObject[] = [];

	/** Open tool calls by run id (or by tool name when the payload has no run id), oldest first. */
	private readonly open = new Map<string, ToolCall[]>();

	/** Tool-argument text streamed before any tool call began: the next call takes it. */
	private pendingArguments = '';

	constructor(
		/** What the output shows besides text and toolCalls; `steps` only raw output (not Simplify):
		 *  nothing else is kept for the length of a run. */
		private readonly keep: { logs: boolean; events: boolean; steps?: boolean },
		/** Called with each token as it arrives. */
		private readonly onToken?: (token: string) => void,
	) {}

	/**
	 * One streamed value; returns true when it is the final result (an object without a tag). A
	 * line that is not an object ends the reading too: the caller refuses it as a wrong shape.
	 */
	add(value: unknown): boolean {
		const event = value as { tag?: unknown; data?: unknown } | null;
		if (event === null || typeof event !== 'object' || Array.isArray(event)) return true;
		const tag = event.tag;
		if (tag === undefined) return true;
		if (this.keep.events) this.events.push(event as IDataObject);
		if (tag === 'onNewToken') {
			const data = asObject(event.data);
			const token = data.token;
			if (typeof token !== 'string') return false;
			// BotDojo's SDK takes a token as answer text only when its updateType is 'completion'
			// (chatReducer.ts); 'function' tokens are a tool's argument text. Tokens without one
			// are the answer, as the REST pages send them, unless they carry toolArguments.
			if (data.updateType !== undefined && data.updateType !== 'completion') {
				this.argumentText(token);
			} else if (data.toolArguments === undefined) {
				this.text.add(token);
				this.onToken?.(token);
			}
			return false;
		}
		const data = asObject(event.data);
		switch (tag) {
			case 'onToolStart':
				this.toolStarted(data);
				this.argumentText('');
				break;
			case 'onToolEnd':
				this.toolEnded(data, false);
				break;
			case 'onToolError':
				this.toolEnded(data, true);
				break;
			case 'onIntermediateStepUpdate':
				if (this.keep.steps !== false) this.steps.push(event.data);
				this.stepToolCalls.add(event.data);
				this.argumentText('');
				break;
			case 'onLog':
				if (this.keep.logs) this.logs.push(event.data);
				break;
		}
		return false;
	}

	/** Argument text goes to the tool call begun last (a step, else a tool event). */
	private argumentText(text: string): void {
		const all = this.pendingArguments + text;
		if (!all) return;
		this.pendingArguments = '';
		if (this.stepToolCalls.addArgumentText(all)) return;
		const call = this.toolCalls[this.toolCalls.length - 1];
		if (call) call.argumentText = (call.argumentText ?? '') + all;
		else this.pendingArguments = all;
	}

	private key(data: IDataObject, name: string): string {
		const runId = firstDefined(data, ['runId', 'run_id', 'toolCallId', 'id']);
		return runId !== undefined ? `run:${String(runId)}` : `name:${name}`;
	}

	private toolStarted(data: IDataObject): void {
		const name = String(firstDefined(data, ['toolName', 'name', 'tool']) ?? 'unknown');
		const runId = firstDefined(data, ['runId', 'run_id', 'toolCallId', 'id']);
		const call: ToolCall = {
			name,
			input: firstDefined(data, ['input', 'toolInput', 'args', 'arguments']),
			status: 'running',
			startedAt: new Date().toISOString(),
			...(runId !== undefined ? { runId: String(runId) } : {}),
		};
		this.toolCalls.push(call);
		const key = this.key(data, name);
		const list = this.open.get(key) ?? [];
		list.push(call);
		this.open.set(key, list);
	}

	private toolEnded(data: IDataObject, failed: boolean): void {
		const name = String(firstDefined(data, ['toolName', 'name', 'tool']) ?? 'unknown');
		const key = this.key(data, name);
		let call = this.open.get(key)?.shift();
		if (!call) {
			call = { name, status: 'running' };
			const runId = firstDefined(data, ['runId', 'run_id', 'toolCallId', 'id']);
			if (runId !== undefined) call.runId = String(runId);
			this.toolCalls.push(call);
		}
		const endedAt = new Date();
		call.endedAt = endedAt.toISOString();
		if (call.startedAt) call.durationMs = endedAt.getTime() - Date.parse(call.startedAt);
		if (call.input === undefined) {
			call.input = firstDefined(data, ['input', 'toolInput', 'args', 'arguments']);
		}
		if (failed) {
			call.status = 'error';
			call.error = firstDefined(data, ['error', 'message', 'errorMessage']) ?? data;
		} else {
			call.status = 'complete';
			call.output = firstDefined(data, ['output', 'toolOutput', 'result', 'observation']);
		}
	}
}
