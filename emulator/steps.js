'use strict';
/**
 * Tool steps in both shapes the emulator can send.
 *
 * - `legacy` (our guess, the emulator's first shape): `{ toolName, input, output | error, status, runId }`.
 * - `real` (public evidence: botdojo-ai/botdojo-chat-sdk src/generated/sdk-types-snapshot.ts,
 *   `toSDKStep`: "Server sends `arguments` as a string", "Server sends result in `content`",
 *   `toolPhase`, `subIntermediateSteps`): `{ stepId, stepLabel, stepStatus, content, arguments,
 *   toolPhase, canvas, subIntermediateSteps, startTime[, error] }`.
 */

/**
 * @typedef {{ toolName: string, input?: any, output?: any, error?: string }} ToolCall
 * @typedef {'streaming_args' | 'executing' | 'complete' | 'error'} ToolPhase
 */

/** @param {ToolCall} tool @param {string} runId */
function legacyStep(tool, runId) {
	return tool.error !== undefined
		? {
				toolName: tool.toolName,
				input: tool.input ?? {},
				error: tool.error,
				status: 'error',
				runId,
			}
		: {
				toolName: tool.toolName,
				input: tool.input ?? {},
				output: tool.output ?? null,
				status: 'complete',
				runId,
			};
}

/** A tool result as the real service writes it into `content`: text, or JSON text. @param {any} value */
function contentOf(value) {
	return typeof value === 'string' ? value : JSON.stringify(value ?? null);
}

/**
 * One tool step in the real shape, at a given phase of the call.
 * @param {ToolCall} tool
 * @param {string} stepId
 * @param {ToolPhase} phase
 * @param {string} startTime
 */
function realStep(tool, stepId, phase, startTime) {
	const done = phase === 'complete' || phase === 'error';
	const failed = phase === 'error';
	return {
		stepId,
		stepLabel: tool.toolName,
		stepStatus: done ? (failed ? 'error' : 'complete') : 'processing',
		content: done ? (failed ? String(tool.error) : contentOf(tool.output)) : '',
		arguments: phase === 'streaming_args' ? '' : JSON.stringify(tool.input ?? {}),
		toolPhase: phase,
		canvas: null,
		subIntermediateSteps: [],
		startTime,
		...(failed ? { error: String(tool.error) } : {}),
	};
}

/** The finished step of a call, real shape. @param {ToolCall} tool @param {string} stepId @param {string} startTime */
function finishedRealStep(tool, stepId, startTime) {
	return realStep(tool, stepId, tool.error !== undefined ? 'error' : 'complete', startTime);
}

/**
 * The growing argument text of a call, as `onNewToken { toolArguments }` carries it while the
 * model writes the call (each value is the text so far, like the SDK's partial arguments).
 * @param {ToolCall} tool
 * @returns {string[]}
 */
function argumentPrefixes(tool) {
	const text = JSON.stringify(tool.input ?? {});
	const parts = 3;
	const out = [];
	for (let i = 1; i <= parts; i++) out.push(text.slice(0, Math.ceil((text.length * i) / parts)));
	return out;
}

module.exports = { legacyStep, realStep, finishedRealStep, argumentPrefixes, contentOf };
