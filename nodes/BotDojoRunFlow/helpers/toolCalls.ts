/**
 * Tool calls from the two shapes BotDojo describes a tool step in:
 * - the real one (BotDojo's chat SDK types): `{ stepId, stepLabel, stepStatus, content,
 *   arguments (a JSON string), toolPhase, canvas, subIntermediateSteps }`, also with the SDK's
 *   `stepToolName` / `stepToolArguments` / `stepToolResult` names, and last
 *   `canvas.canvasData.arguments` / `.result` (BotDojoChatProvider.tsx reads them there "because
 *   some servers attach args there");
 * - a flat one: `{ toolName, input, output | error, status }`.
 * The same steps arrive as `onIntermediateStepUpdate` events and in the final record's
 * `aiMessage.steps`, so a streamed and a non-streamed run give the same tool calls.
 */
import { nodeNameToToolName, type IDataObject } from 'n8n-workflow';

export interface ToolCall {
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
	return value !== null && typeof value === 'object' && !Array.isArray(value)
		? (value as IDataObject)
		: {};
}

export function firstDefined(data: IDataObject, keys: string[]): unknown {
	for (const key of keys) if (data[key] !== undefined && data[key] !== null) return data[key];
	return undefined;
}

/** Arguments and results arrive as JSON text in the real shape: parsed when they are JSON. */
function parsedJson(value: unknown): unknown {
	if (typeof value !== 'string') return value;
	const trimmed = value.trim();
	if (!/^[[{"]/.test(trimmed)) return value;
	try {
		return JSON.parse(trimmed);
	} catch {
		return value;
	}
}

const NAME_KEYS = ['stepToolName', 'toolName', 'tool'];
const REAL_TOOL_KEYS = ['arguments', 'stepToolArguments', 'toolPhase', 'stepToolPhase'];

function canvasDataOf(step: IDataObject): IDataObject {
	return asObject(asObject(step.canvas).canvasData);
}

/** Text that is empty says nothing (BotDojo sends "" while a step runs). */
function unlessEmpty(value: unknown): unknown {
	return value === '' ? undefined : value;
}

/** A step is a tool step when it names a tool or carries tool arguments or a tool phase. */
function isToolStep(step: IDataObject): boolean {
	return (
		[...NAME_KEYS, ...REAL_TOOL_KEYS].some((key) => step[key] !== undefined) ||
		canvasDataOf(step).arguments !== undefined
	);
}

function statusOf(step: IDataObject, error: unknown): ToolCall['status'] {
	const status = String(firstDefined(step, ['stepStatus', 'status']) ?? '').toLowerCase();
	if (status === 'error' || status === 'failed' || error !== undefined) return 'error';
	if (status === 'processing' || status === 'running' || status === 'start') return 'running';
	return 'complete';
}

/** One tool step, either shape, as a ToolCall. */
export function toolCallOfStep(step: IDataObject): ToolCall {
	const name = firstDefined(step, [...NAME_KEYS, 'stepLabel', 'name']);
	const explicitError = firstDefined(step, ['error', 'errorMessage']);
	const status = statusOf(step, explicitError);
	const call: ToolCall = {
		name: name === undefined ? 'unknown' : String(name),
		input: parsedJson(
			unlessEmpty(
				firstDefined(step, ['stepToolArguments', 'arguments', 'input', 'toolInput', 'args']),
			) ?? canvasDataOf(step).arguments,
		),
		status,
	};
	// The real shape writes the result into `content`, as text or JSON text.
	const result =
		unlessEmpty(firstDefined(step, ['stepToolResult', 'output', 'toolOutput', 'result'])) ??
		parsedJson(unlessEmpty(step.content) ?? canvasDataOf(step).result);
	if (status === 'error') call.error = explicitError ?? result;
	else if (result !== undefined) call.output = result;
	const runId = firstDefined(step, ['runId', 'run_id']);
	if (runId !== undefined) call.runId = String(runId);
	const stepId = step.stepId;
	if (stepId !== undefined && stepId !== null) call.stepId = String(stepId);
	return call;
}

/** Tool steps of a step list, nested ones (`subIntermediateSteps`, `subSteps`) included. */
export function toolStepsOf(steps: unknown, into: IDataObject[] = []): IDataObject[] {
	if (!Array.isArray(steps)) return into;
	for (const item of steps) {
		const step = asObject(item);
		if (isToolStep(step)) into.push(step);
		toolStepsOf(step.subIntermediateSteps ?? step.subSteps, into);
	}
	return into;
}

/** Tool calls read from the record's aiMessage.steps. */
export function toolCallsFromRecord(record: IDataObject): ToolCall[] {
	return toolStepsOf(asObject(record.aiMessage).steps).map(toolCallOfStep);
}

/**
 * Step updates by step id: a later update of the same step replaces the earlier one, so a
 * step that went "processing" → "complete" is one call.
 */
export class StepToolCalls {
	private readonly byKey = new Map<string, ToolCall>();

	private anonymous = 0;

	/** The step updated last: streamed argument text belongs to it. */
	private lastKey?: string;

	private readonly argumentTexts = new Map<string, string>();

	add(data: unknown): void {
		for (const step of toolStepsOf([data])) {
			const call = toolCallOfStep(step);
			const id = step.stepId ?? step.runId;
			const key = id !== undefined && id !== null ? String(id) : `#${this.anonymous++}`;
			const earlier = this.byKey.get(key);
			// An update may leave out what an earlier one said (e.g. the arguments).
			this.byKey.set(key, earlier ? { ...earlier, ...defined(call) } : call);
			this.lastKey = key;
		}
	}

	/** Adds argument text to the step updated last; false when there is none yet. */
	addArgumentText(text: string): boolean {
		if (this.lastKey === undefined) return false;
		this.argumentTexts.set(this.lastKey, (this.argumentTexts.get(this.lastKey) ?? '') + text);
		return true;
	}

	get calls(): ToolCall[] {
		return [...this.byKey].map(([key, call]) => {
			const argumentText = this.argumentTexts.get(key);
			return argumentText === undefined ? call : { ...call, argumentText };
		});
	}
}

function defined(call: ToolCall): Partial<ToolCall> {
	const out: Partial<ToolCall> = {};
	for (const [key, value] of Object.entries(call)) {
		if (value !== undefined) (out as IDataObject)[key] = value as IDataObject[string];
	}
	return out;
}

/**
 * The run's tool calls: the final record's steps decide when they name tools (so a streamed
 * and a non-streamed run agree); without tool steps in the record, the tool events, then the
 * step events. What only the stream tells (onToolStart/End timings, argument text) is added to
 * the matching call.
 */
export function resolveToolCalls(
	record: IDataObject,
	fromEvents: ToolCall[],
	fromSteps: ToolCall[],
): ToolCall[] {
	const fromRecord = toolCallsFromRecord(record);
	const calls =
		fromRecord.length > 0 ? fromRecord : fromEvents.length > 0 ? fromEvents : fromSteps;
	for (const streamed of [fromEvents, fromSteps]) {
		if (streamed !== calls) addStreamed(calls, streamed);
	}
	return calls;
}

const STREAMED_ONLY = ['startedAt', 'endedAt', 'durationMs', 'argumentText'] as const;

const idOf = (call: ToolCall) => call.runId ?? call.stepId;

/** Copies what only the stream tells into the calls, matched by id, else by name, in order. */
function addStreamed(calls: ToolCall[], streamed: ToolCall[]): void {
	const unmatched = [...streamed];
	for (const call of calls) {
		const id = idOf(call);
		const index = unmatched.findIndex((other) =>
			id !== undefined && idOf(other) !== undefined ? idOf(other) === id : other.name === call.name,
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

/** One tool call as n8n's AI Agent reports it in `intermediateSteps`. */
export interface AgentStep {
	action: { tool: string; toolInput: unknown };
	observation: unknown;
}

/**
 * The tool calls in the shape n8n's AI Agent gives `intermediateSteps`, which the Evaluation
 * node's "Tools Used" metric reads (`action.tool`). The metric compares names after n8n's
 * tool-name rule (runs of other characters become `_`, at most 64 characters), so the names
 * follow that rule too: a BotDojo tool labelled "Web Search" matches an expected "Web Search".
 */
export function agentStepsOf(calls: ToolCall[]): AgentStep[] {
	return calls.map((call) => ({
		action: { tool: nodeNameToToolName(call.name), toolInput: call.input ?? {} },
		observation: call.status === 'error' ? call.error : call.output,
	}));
}
