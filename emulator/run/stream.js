'use strict';
/**
 * Run, streamed (`stream: 'http'`): the NDJSON events of a run in the legacy or the real shape,
 * with the stream faults (drop, stall, malformed, huge-line, token-delay, split-utf8, no-final).
 */
const { newId, iso, mismatched, sleep } = require('../util');
const { findFault } = require('../faults');
const {
	legacyStep,
	realStep,
	finishedRealStep,
	argumentPieces,
	argumentPrefixes,
} = require('../steps');
const { StreamOut, ABORT } = require('./streamOut');
const { completedRecord, finishRecord } = require('./record');

/** @typedef {import('../flows').ToolCall} ToolCall */

/**
 * @param {import('../types').Context} ctx
 * @param {import('node:http').ServerResponse} res
 * @param {import('./request').RunPlan} plan
 * @param {import('./record').RunRecord} rec
 * @param {number} startMs
 */
async function streamRun(ctx, res, plan, rec, startMs) {
	const { flow, faults, events, real } = plan;
	const out = new StreamOut(ctx, res, !!findFault(faults, 'split-utf8'));
	const entry = /** @type {any} */ (res).logEntry;
	if (entry) entry.status = 200;
	res.writeHead(200, {
		'Content-Type': 'application/x-ndjson',
		'Transfer-Encoding': 'chunked',
		'Cache-Control': 'no-cache',
		Connection: 'keep-alive',
	});
	res.flushHeaders();

	const delayFault = findFault(faults, 'token-delay');
	const tokenDelay = delayFault ? Number(delayFault.params.ms ?? 50) : flow.tokenDelayMs || 0;
	if (tokenDelay === 0 && !out.split && plan.tokens.length > 1000) out.batchBytes = 16384;
	const hooks = faultHooks(out, faults);

	const emit = async (/** @type {string} */ tag, /** @type {any} */ data) => {
		if (events && !events.has(tag)) return;
		await out.write(`${JSON.stringify({ tag, data })}\n`);
		hooks.count += 1;
		await hooks.checkpoint(false);
	};
	const log = (/** @type {string} */ level, /** @type {string} */ message) => {
		const now = iso();
		return emit('onLog', { level, message, time: now, timestamp: now });
	};
	// The sdk shape marks each token's kind, as BotDojo's SDK reads it (chatReducer.ts).
	const completion = plan.sdk ? { updateType: 'completion' } : {};
	const emitTokens = async (/** @type {string[]} */ list) => {
		for (let i = 0; i < list.length; i++) {
			if (tokenDelay > 0 && i > 0) await sleep(ctx, tokenDelay);
			if (out.closed) throw ABORT;
			await emit('onNewToken', { token: list[i], ...completion });
		}
	};

	try {
		await hooks.checkpoint(false);
		if (real) await emit('onFlowRequestStart', JSON.parse(JSON.stringify(rec)));
		// The sdk shape sends only the SDK's names (onFlowRequestStart/End).
		if (!plan.sdk) {
			await emit('onFlowStart', {
				flowId: plan.flowId,
				requestId: rec.id,
				sessionId: plan.session.id,
				version: plan.version,
				startTime: rec.startTime,
			});
		}
		await log('info', `Running flow ${plan.flowId} (release ${plan.version})`);
		if (plan.delayMs) await sleep(ctx, plan.delayMs);
		await emitTokens(plan.preamble);
		for (const tool of plan.tools) {
			const argumentTokens = flow.toolArgumentTokens ? (plan.sdk ? 'function' : 'prefixes') : '';
			const step = real
				? await realToolEvents(emit, tool, argumentTokens)
				: await legacyToolEvents(emit, tool);
			rec.aiMessage.steps.push(step);
		}
		await emitTokens(plan.tokens);
		const isError = flow.status === 'error';
		if (isError) await log('error', flow.errorMessage || 'Flow failed');
		if (!plan.sdk) {
			await emit('onFlowEnd', {
				flowId: plan.flowId,
				requestId: rec.id,
				status: isError ? 'error' : 'complete',
				duration: Date.now() - startMs,
			});
		}
		/** @type {import('./record').RunRecord | null} */
		let completed = null;
		if (real) {
			completed = completedRecord(rec, plan, startMs);
			await emit('onFlowRequestEnd', JSON.parse(JSON.stringify(completed)));
		}
		await hooks.checkpoint(true);
		finishRecord(ctx, rec, completed || completedRecord(rec, plan, startMs), plan);
		const final = ctx.behavior.answerShape === 'mismatched' ? mismatched(rec) : rec;
		if (!findFault(faults, 'no-final')) await out.write(`${JSON.stringify(final)}\n`);
		await out.end();
	} catch (err) {
		if (err !== ABORT) {
			if (!res.destroyed) res.destroy(/** @type {Error} */ (err));
			throw err;
		}
	}
}

/**
 * The fault hooks that run after each event line and once before the final line.
 * @param {StreamOut} out
 * @param {import('../faults').Fault[]} faults
 */
function faultHooks(out, faults) {
	const drop = findFault(faults, 'drop');
	const stall = findFault(faults, 'stall');
	const malformed = findFault(faults, 'malformed');
	const huge = findFault(faults, 'huge-line');
	const after = (
		/** @type {import('../faults').Fault | undefined} */ f,
		/** @type {number} */ d,
	) => (f && Number.isFinite(Number(f.params.afterEvents)) ? Number(f.params.afterEvents) : d);
	const dropAfter = after(drop, 3);
	const stallAfter = after(stall, 3);
	const malformedAfter = after(malformed, 3);
	const hugeAfter = after(huge, 1);
	let malformedDone = false;
	let hugeDone = false;
	const hooks = {
		/** event lines written so far */
		count: 0,
		/** @param {boolean} final */
		async checkpoint(final) {
			if (malformed && !malformedDone && (hooks.count >= malformedAfter || final)) {
				malformedDone = true;
				await out.write('{"tag":"onNewToken","data":#!garbage{{not json\n');
			}
			if (huge && !hugeDone && (hooks.count >= hugeAfter || final)) {
				hugeDone = true;
				const size = Number(huge.params.bytes) > 64 ? Number(huge.params.bytes) : 20 * 1024 * 1024;
				const head = Buffer.from('{"tag":"onNewToken","data":{"token":"');
				const tail = Buffer.from('"}}\n');
				const line = Buffer.alloc(size, 'x');
				head.copy(line, 0);
				tail.copy(line, size - tail.length);
				hooks.count += 1;
				await out.write(line);
			}
			if (drop && (hooks.count >= dropAfter || final)) {
				await out.drop();
				throw ABORT;
			}
			if (stall && (hooks.count >= stallAfter || final)) {
				await out.flush();
				await out.wait(); // until the client aborts or emu.close()
				throw ABORT;
			}
		},
	};
	return hooks;
}

/**
 * @typedef {(tag: string, data: any) => Promise<void>} Emit
 */

/**
 * One tool call, legacy shape. Returns the step for aiMessage.steps.
 * @param {Emit} emit
 * @param {ToolCall} tool
 */
async function legacyToolEvents(emit, tool) {
	const runId = newId('run');
	const step = legacyStep(tool, runId);
	await emit('onIntermediateStepUpdate', {
		type: 'tool',
		status: 'start',
		toolName: tool.toolName,
		runId,
	});
	await emit('onToolStart', { toolName: tool.toolName, input: tool.input ?? {}, runId });
	if (tool.error !== undefined)
		await emit('onToolError', { toolName: tool.toolName, error: tool.error, runId });
	else await emit('onToolEnd', { toolName: tool.toolName, output: tool.output ?? null, runId });
	await emit('onIntermediateStepUpdate', { ...step, type: 'tool' });
	return step;
}

/**
 * One tool call, real shape: the step while its arguments are written, executing, done.
 * Returns the finished step for aiMessage.steps.
 * @param {Emit} emit
 * @param {ToolCall} tool
 * @param {'prefixes' | 'function' | ''} argumentTokens stream the arguments as
 *   onNewToken { toolArguments: <text so far> }, or as onNewToken { token, updateType: 'function' }
 */
async function realToolEvents(emit, tool, argumentTokens) {
	const stepId = newId('step');
	const at = iso();
	await emit('onIntermediateStepUpdate', realStep(tool, stepId, 'streaming_args', at));
	if (argumentTokens === 'prefixes') {
		for (const partial of argumentPrefixes(tool))
			await emit('onNewToken', { toolArguments: partial });
	} else if (argumentTokens === 'function') {
		for (const piece of argumentPieces(tool))
			await emit('onNewToken', { token: piece, updateType: 'function' });
	}
	await emit('onIntermediateStepUpdate', realStep(tool, stepId, 'executing', at));
	const ids = { runId: stepId, stepId };
	await emit('onToolStart', { toolName: tool.toolName, input: tool.input ?? {}, ...ids });
	if (tool.error !== undefined)
		await emit('onToolError', { toolName: tool.toolName, error: tool.error, ...ids });
	else await emit('onToolEnd', { toolName: tool.toolName, output: tool.output ?? null, ...ids });
	const done = finishedRealStep(tool, stepId, at);
	await emit('onIntermediateStepUpdate', done);
	return done;
}

module.exports = { streamRun };
