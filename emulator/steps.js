'use strict';
/**
 * Tool steps in both shapes the emulator can send.
 *
 * - `legacy` (our guess, the emulator's first shape): `{ toolName, input, output | error, status, runId }`.
 * - `real` (public evidence: botdojo-ai/botdojo-chat-sdk src/headless/context/BotDojoChatProvider.tsx,
 *   comments "The server sends `arguments` as a string" and "server often sends results as JSON
 *   strings in 'content'"; src/canvas/types.ts `toolPhase`; src/generated/sdk-types-snapshot.ts
 *   `FlowRequestStep`, whose `subSteps` was `subIntermediateSteps`): `{ stepId, stepLabel,
 *   stepStatus, content, arguments, toolPhase, canvas, subIntermediateSteps, startTime[, error] }`.
 *   A tool with `viaCanvas` has its arguments and result only in `canvas.canvasData` (the same
 *   file reads them there "because some servers attach args there"), `content` empty.
 */

/**
 * @typedef {import('./types').ToolCall} ToolCall
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
	if (tool.viaCanvas) {
		const canvasData = {
			arguments: tool.input ?? {},
			...(done && !failed ? { result: contentOf(tool.output) } : {}),
		};
		return {
			stepId,
			stepLabel: tool.toolName,
			stepStatus: done ? (failed ? 'error' : 'complete') : 'processing',
			content: '',
			canvas: { canvasId: `canvas_${stepId}`, canvasType: 'mcp-app', canvasData },
			startTime,
			...(failed ? { error: String(tool.error) } : {}),
		};
	}
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
 * The argument text of a call in three pieces, as the model writes it: the `token`s of
 * `onNewToken { updateType: 'function' }` (sdk shape).
 * @param {ToolCall} tool
 * @returns {string[]}
 */
function argumentPieces(tool) {
	const text = JSON.stringify(tool.input ?? {});
	const cut = (/** @type {number} */ i) => Math.ceil((text.length * i) / 3);
	return [0, 1, 2].map((i) => text.slice(cut(i), cut(i + 1)));
}

/**
 * The growing argument text of a call, as `onNewToken { toolArguments }` carries it while the
 * model writes the call (each value is the text so far, like the SDK's partial arguments).
 * @param {ToolCall} tool
 * @returns {string[]}
 */
function argumentPrefixes(tool) {
	let soFar = '';
	return argumentPieces(tool).map((piece) => (soFar += piece));
}

module.exports = {
	legacyStep,
	realStep,
	finishedRealStep,
	argumentPieces,
	argumentPrefixes,
	contentOf,
};
