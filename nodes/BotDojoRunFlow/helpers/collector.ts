/**
 * A run's events collected: answer tokens → text, tool-argument tokens, tool start/end/error and
 * tool steps → tool calls, steps' canvases, intermediate steps → steps, logs → logs (when asked
 * for), and optionally every event, under the tag it arrived with. The flow's start and end
 * (onFlowStart/End, or the SDK's onFlowRequestStart/End) are only kept among the events.
 *
 * Tool steps come in two shapes:
 * - the real one (BotDojo's chat SDK types): `{ stepId, stepLabel, stepStatus, content,
 *   arguments (a JSON string), toolPhase, canvas, subIntermediateSteps }`, also with the SDK's
 *   `stepToolName` / `stepToolArguments` / `stepToolResult` names, and last
 *   `canvas.canvasData.arguments` / `.result` (BotDojoChatProvider.tsx reads them there "because
 *   some servers attach args there");
 * - a flat one: `{ toolName, input, output | error, status }`.
 * The same steps arrive as `onIntermediateStepUpdate` events and in the final record's
 * `aiMessage.steps`: the record decides, so a streamed and a non-streamed run agree.
 */
import { nodeNameToToolName, type IDataObject } from 'n8n-workflow';

import { isJsonObject } from '../../shared/validation';

interface ToolCall {
	name: string;
	input?: unknown;
	output?: unknown;
	error?: unknown;
	status: 'running' | 'complete' | 'error';
	startedAt?: string;
	endedAt?: string;
	durationMs?: number;
	runId?: string;
	stepId?: string;
	/** The argument text streamed while the model wrote the call (`onNewToken` of kind `function`). */
	argumentText?: string;
}

export function asObject(value: unknown): IDataObject {
	return isJsonObject(value) ? value : {};
}

function firstDefined(data: IDataObject, keys: string[]): unknown {
	for (const key of keys) if (data[key] !== undefined && data[key] !== null) return data[key];
	return undefined;
}

/** Arguments and results arrive as JSON text in the real shape: parsed when they are JSON. */
function parsedJson(value: unknown): unknown {
	if (typeof value !== 'string' || !/^\s*[[{"]/.test(value)) return value;
	try {
		return JSON.parse(value);
	} catch {
		return value;
	}
}

/** Text that is empty says nothing (BotDojo sends "" while a step runs). */
const unlessEmpty = (value: unknown) => (value === '' ? undefined : value);

const NAME_KEYS = ['stepToolName', 'toolName', 'tool'];
const TOOL_KEYS = [...NAME_KEYS, 'arguments', 'stepToolArguments', 'toolPhase', 'stepToolPhase'];
const RUN_ID_KEYS = ['runId', 'run_id', 'toolCallId', 'id'];
const INPUT_KEYS = ['input', 'toolInput', 'args', 'arguments'];

/** Every step of a list, nested ones (`subIntermediateSteps`, `subSteps`) after their parent. */
function allSteps(steps: unknown, into: IDataObject[] = []): IDataObject[] {
	if (!Array.isArray(steps)) return into;
	for (const item of steps) {
		const step = asObject(item);
		into.push(step);
		allSteps(step.subIntermediateSteps ?? step.subSteps, into);
	}
	return into;
}

const canvasDataOf = (step: IDataObject) => asObject(asObject(step.canvas).canvasData);

/** A tool step names a tool or carries tool arguments or a tool phase. */
const isToolStep = (step: IDataObject) =>
	TOOL_KEYS.some((key) => step[key] !== undefined) || canvasDataOf(step).arguments !== undefined;

/** One tool step, either shape, as a ToolCall; only the fields the step tells are set. */
function toolCallOfStep(step: IDataObject): ToolCall {
	const error = firstDefined(step, ['error', 'errorMessage']);
	const state = String(firstDefined(step, ['stepStatus', 'status']) ?? '').toLowerCase();
	const status =
		state === 'error' || state === 'failed' || error !== undefined
			? 'error'
			: ['processing', 'running', 'start'].includes(state)
				? 'running'
				: 'complete';
	const call: ToolCall = {
		name: String(firstDefined(step, [...NAME_KEYS, 'stepLabel', 'name']) ?? 'unknown'),
		status,
	};
	const input = parsedJson(
		unlessEmpty(
			firstDefined(step, ['stepToolArguments', 'arguments', 'input', 'toolInput', 'args']),
		) ?? canvasDataOf(step).arguments,
	);
	if (input !== undefined) call.input = input;
	// The real shape writes the result into `content`, as text or JSON text.
	const result =
		unlessEmpty(firstDefined(step, ['stepToolResult', 'output', 'toolOutput', 'result'])) ??
		parsedJson(unlessEmpty(step.content) ?? canvasDataOf(step).result);
	const outcome = status === 'error' ? (error ?? result) : result;
	if (outcome !== undefined) call[status === 'error' ? 'error' : 'output'] = outcome;
	for (const key of ['runId', 'stepId'] as const) {
		const id = firstDefined(step, key === 'runId' ? ['runId', 'run_id'] : [key]);
		if (id !== undefined) call[key] = String(id);
	}
	return call;
}

/**
 * Step updates by step id: a later update of the same step adds to the earlier one (it may
 * leave out what that said, e.g. the arguments), so a step that went "processing" →
 * "complete" is one call.
 */
class StepToolCalls {
	private readonly byKey = new Map<unknown, ToolCall>();

	/** The step updated last: streamed argument text belongs to it. */
	private last?: ToolCall;

	add(data: unknown) {
		for (const step of allSteps([data]).filter(isToolStep)) {
			const call = toolCallOfStep(step);
			const key = step.stepId ?? step.runId ?? Symbol('step');
			const earlier = this.byKey.get(key);
			this.last = earlier ? Object.assign(earlier, call) : call;
			this.byKey.set(key, this.last);
		}
	}

	/** Adds argument text to the step updated last; false when there is none yet. */
	addArgumentText(text: string) {
		if (this.last) this.last.argumentText = (this.last.argumentText ?? '') + text;
		return this.last !== undefined;
	}

	get calls() {
		return [...this.byKey.values()];
	}
}

/** The canvases steps carry (an MCP app, a chart …), the latest update of each step. */
function stepCanvases(steps: unknown, into = new Map<unknown, unknown>()) {
	for (const step of allSteps(steps)) {
		if (step.canvas !== null && typeof step.canvas === 'object') {
			into.set(step.stepId ?? step.runId ?? Symbol('step'), step.canvas);
		}
	}
	return into;
}

/**
 * Joins the answer's tokens in batches, then the batches with `+` (V8 links the two strings
 * rather than copying them): the memory held stays close to the size of the text, without one
 * link per token.
 */
class TextCollector {
	private batch: string[] = [];

	private text = '';

	add(token: string) {
		if (this.batch.push(token) === 2048) this.toString();
	}

	toString(): string {
		this.text += this.batch.join('');
		this.batch = [];
		return this.text;
	}
}

export class RunCollector {
	readonly text = new TextCollector();

	/** Tool calls told by onToolStart/End/Error. */
	readonly toolCalls: ToolCall[] = [];

	/** Tool calls told by onIntermediateStepUpdate steps. */
	readonly stepToolCalls = new StepToolCalls();

	readonly canvases = new Map<unknown, unknown>();

	readonly steps: unknown[] = [];

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

	/** One streamed event: the transport passes only events (objects with a `tag`), never the
	 *  final record or a line of the wrong shape. */
	add(value: unknown) {
		const event = value as IDataObject;
		if (this.keep.events) this.events.push(event);
		const data = asObject(event.data);
		switch (event.tag) {
			case 'onNewToken':
				if (typeof data.token !== 'string') break;
				// BotDojo's SDK takes a token as answer text only when its updateType is 'completion'
				// (chatReducer.ts); 'function' tokens are a tool's argument text. Tokens without one
				// are the answer, as the REST pages send them, unless they carry toolArguments.
				if (data.updateType !== undefined && data.updateType !== 'completion') {
					this.argumentText(data.token);
				} else if (data.toolArguments === undefined) {
					this.text.add(data.token);
					this.onToken?.(data.token);
				}
				break;
			case 'onToolStart':
				this.toolEvent(data, 'running');
				this.argumentText('');
				break;
			case 'onToolEnd':
				this.toolEvent(data, 'complete');
				break;
			case 'onToolError':
				this.toolEvent(data, 'error');
				break;
			case 'onIntermediateStepUpdate':
				if (this.keep.steps !== false) this.steps.push(event.data);
				this.stepToolCalls.add(event.data);
				stepCanvases([event.data], this.canvases);
				this.argumentText('');
				break;
			case 'onLog':
				if (this.keep.logs) this.logs.push(event.data);
				break;
		}
	}

	/** Argument text goes to the tool call begun last (a step, else a tool event). */
	private argumentText(text: string) {
		const all = this.pendingArguments + text;
		if (!all) return;
		this.pendingArguments = '';
		if (this.stepToolCalls.addArgumentText(all)) return;
		const call = this.toolCalls[this.toolCalls.length - 1];
		if (call) call.argumentText = (call.argumentText ?? '') + all;
		else this.pendingArguments = all;
	}

	/** A tool's start (`running`), or its end, matched to the oldest open call of its key. */
	private toolEvent(data: IDataObject, status: ToolCall['status']) {
		const name = String(firstDefined(data, ['toolName', 'name', 'tool']) ?? 'unknown');
		const runId = firstDefined(data, RUN_ID_KEYS);
		const key = runId !== undefined ? `run:${String(runId)}` : `name:${name}`;
		let call = status === 'running' ? undefined : this.open.get(key)?.shift();
		if (!call) {
			call = { name, input: firstDefined(data, INPUT_KEYS), status: 'running' };
			if (runId !== undefined) call.runId = String(runId);
			this.toolCalls.push(call);
			if (status === 'running') {
				call.startedAt = new Date().toISOString();
				this.open.set(key, [...(this.open.get(key) ?? []), call]);
				return;
			}
		}
		const endedAt = new Date();
		call.endedAt = endedAt.toISOString();
		if (call.startedAt) call.durationMs = endedAt.getTime() - Date.parse(call.startedAt);
		call.input ??= firstDefined(data, INPUT_KEYS);
		call.status = status;
		if (status === 'error')
			call.error = firstDefined(data, ['error', 'message', 'errorMessage']) ?? data;
		else call.output = firstDefined(data, ['output', 'toolOutput', 'result', 'observation']);
	}
}

/** The canvases of the run's steps: the record's, else the streamed ones. */
export function stepCanvasesOf(record: IDataObject, collector?: RunCollector) {
	const fromRecord = stepCanvases(asObject(record.aiMessage).steps);
	return [...(fromRecord.size > 0 || !collector ? fromRecord : collector.canvases).values()];
}

const STREAMED_ONLY = ['startedAt', 'endedAt', 'durationMs', 'argumentText'] as const;

const idOf = (call: ToolCall) => call.runId ?? call.stepId;

/**
 * The run's tool calls: the final record's steps decide when they name tools (so a streamed
 * and a non-streamed run agree); without tool steps in the record, the tool events, then the
 * step events. What only the stream tells (onToolStart/End timings, argument text) is added to
 * the matching call, matched by id, else by name, in order.
 */
export function toolCallsOf(record: IDataObject, collector?: RunCollector): ToolCall[] {
	const fromRecord = allSteps(asObject(record.aiMessage).steps)
		.filter(isToolStep)
		.map(toolCallOfStep);
	const [fromEvents, fromSteps] = [
		collector?.toolCalls ?? [],
		collector?.stepToolCalls.calls ?? [],
	];
	const calls = [fromRecord, fromEvents, fromSteps].find((list) => list.length > 0) ?? fromSteps;
	for (const streamed of [fromEvents, fromSteps]) {
		if (streamed === calls) continue;
		const unmatched = [...streamed];
		for (const call of calls) {
			const id = idOf(call);
			const index = unmatched.findIndex((other) =>
				id !== undefined && idOf(other) !== undefined
					? idOf(other) === id
					: other.name === call.name,
			);
			if (index === -1) continue;
			const [other] = unmatched.splice(index, 1);
			for (const field of STREAMED_ONLY) {
				if (call[field] === undefined && other[field] !== undefined) {
					(call as unknown as IDataObject)[field] = other[field];
				}
			}
		}
	}
	return calls;
}

/**
 * The tool calls in the shape n8n's AI Agent gives `intermediateSteps`, which the Evaluation
 * node's "Tools Used" metric reads (`action.tool`). The metric compares names after n8n's
 * tool-name rule (runs of other characters become `_`, at most 64 characters), so the names
 * follow that rule too: a BotDojo tool labelled "Web Search" matches an expected "Web Search".
 */
export function agentStepsOf(calls: ToolCall[]): IDataObject[] {
	return calls.map((call) => ({
		action: { tool: nodeNameToToolName(call.name), toolInput: call.input ?? {} },
		observation: call.status === 'error' ? call.error : call.output,
	})) as IDataObject[];
}
