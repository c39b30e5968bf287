'use strict';
/**
 * Run, phase 1: read the run request (Style A) and load what the run needs: the flow and its
 * release, the session (or its refusal), the stream faults, and the flow's answer, computed
 * before anything is sent so that a throwing flow gives 500.
 */
const { HttpError, badRequest, notFound, isPlainObject } = require('../util');
const {
	takeFaults,
	findFault,
	STREAM_FAULTS,
	SESSION_FAULTS,
	WHOLE_ANSWER_HALFWAY_FAULTS,
} = require('../faults');
const { splitTokens, bigTokens } = require('../flows');

const TAGS = [
	'onLog',
	'onNewToken',
	'onIntermediateStepUpdate',
	'onFlowStart',
	'onFlowEnd',
	'onToolStart',
	'onToolEnd',
	'onToolError',
	// not in the spec's table; the SDK knows them (botdojo-chat-sdk StreamEventType)
	'onFlowRequestStart',
	'onFlowRequestEnd',
];

/** The stream types of BotDojo's chat SDK (the spec names none and http). */
const STREAM_TYPES = ['none', 'http', 'job', 'realtime'];

/**
 * Validate the run request body; returns { body, options, stream, events }.
 * @param {any} payload
 */
function validateRun(payload) {
	if (!isPlainObject(payload))
		throw badRequest('Request body must be a JSON object { "body": {...}, "options": {...} }');
	const { body } = payload;
	if (body === undefined || body === null) throw badRequest('"body" is required');
	if (!isPlainObject(body)) throw badRequest('"body" must be an object');
	const options = payload.options === undefined || payload.options === null ? {} : payload.options;
	if (!isPlainObject(options)) throw badRequest('"options" must be an object');

	const sid = options.flow_session_id;
	if (sid !== undefined && sid !== null && (typeof sid !== 'string' || sid === '')) {
		throw badRequest('"options.flow_session_id" must be a non-empty string or null');
	}
	if (
		options.version !== undefined &&
		options.version !== null &&
		typeof options.version !== 'string'
	) {
		throw badRequest('"options.version" must be a string');
	}
	const stream = options.stream === undefined || options.stream === null ? 'none' : options.stream;
	// BotDojo's chat SDK knows job and realtime too; here they answer as none does (the record,
	// which says the stream type that was asked for).
	if (!STREAM_TYPES.includes(stream))
		throw badRequest(`"options.stream" must be one of ${STREAM_TYPES.join(', ')}`);

	/** @type {Set<string> | null} */
	let events = null;
	if (options.stream_events !== undefined && options.stream_events !== null) {
		if (!Array.isArray(options.stream_events))
			throw badRequest('"options.stream_events" must be an array of strings');
		for (const t of options.stream_events) {
			if (!TAGS.includes(t)) {
				throw badRequest(
					`"options.stream_events" contains unknown event "${t}"; known: ${TAGS.join(', ')}`,
				);
			}
		}
		events = new Set(options.stream_events);
	}
	if (
		options.override !== undefined &&
		options.override !== null &&
		!isPlainObject(options.override)
	) {
		throw badRequest('"options.override" must be an object');
	}
	const ev = options.evalOptions;
	if (ev !== undefined && ev !== null) {
		if (!isPlainObject(ev)) throw badRequest('"options.evalOptions" must be an object');
		if (ev.runMode !== undefined && !['async', 'block', 'skip'].includes(ev.runMode)) {
			throw badRequest('"options.evalOptions.runMode" must be "async", "block" or "skip"');
		}
		if (ev.runs !== undefined && ev.runs !== null) {
			if (!Array.isArray(ev.runs)) throw badRequest('"options.evalOptions.runs" must be an array');
			ev.runs.forEach((/** @type {any} */ r, /** @type {number} */ i) => {
				if (!isPlainObject(r) || typeof r.flowEvalId !== 'string' || r.flowEvalId === '') {
					throw badRequest(
						`"options.evalOptions.runs[${i}].flowEvalId" must be a non-empty string`,
					);
				}
				if (
					r.flowEvalExternalInput !== undefined &&
					r.flowEvalExternalInput !== null &&
					!isPlainObject(r.flowEvalExternalInput)
				) {
					throw badRequest(
						`"options.evalOptions.runs[${i}].flowEvalExternalInput" must be an object`,
					);
				}
			});
		}
	}
	return { body, options, stream, events };
}

/**
 * @typedef {import('../flows').Flow} Flow
 * @typedef {import('../flows').ToolCall} ToolCall
 * @typedef {import('../faults').Fault} Fault
 */

/**
 * Everything a run needs, loaded before its record exists.
 * @typedef {{
 *   flowId: string, flow: Flow, body: Record<string, any>, options: Record<string, any>,
 *   stream: string, events: Set<string> | null, version: string, session: Record<string, any>,
 *   faults: Fault[], tokens: string[], answer: string, tools: ToolCall[], preamble: string[],
 *   delayMs: number, real: boolean, sdk: boolean,
 * }} RunPlan
 */

/**
 * Load a run request. Auth and account/project checks are already done.
 * @param {import('../types').Context} ctx
 * @param {import('node:http').IncomingMessage} req
 * @param {string} flowId
 * @param {any} payload parsed JSON body
 * @returns {RunPlan}
 */
function loadRun(ctx, req, flowId, payload) {
	const flow = ctx.flows.get(flowId);
	if (!flow) throw notFound(`Flow '${flowId}' not found in project '${ctx.projectId}'`);
	const { body, options, stream, events } = validateRun(payload);

	const version =
		options.version === undefined || options.version === null
			? flow.defaultRelease
			: options.version;
	if (!flow.releases.includes(version)) {
		throw notFound(
			`Release '${version}' of flow '${flowId}' not found (releases: ${flow.releases.join(', ')})`,
		);
	}

	const session = loadSession(ctx, req, flowId, options.flow_session_id);
	const history = ctx.store.history(session.id).slice();
	const sessionView = { ...session, history, runNumber: history.length + 1 };
	const faults = takeFaults(
		ctx,
		req,
		'run',
		stream === 'http'
			? [...STREAM_FAULTS, ...WHOLE_ANSWER_HALFWAY_FAULTS]
			: WHOLE_ANSWER_HALFWAY_FAULTS,
	);

	const bigFault = findFault(faults, 'big-stream');
	try {
		/** @type {string[]} */
		let tokens;
		/** @type {string} */
		let answer;
		if (bigFault) {
			tokens = bigTokens(
				Number(bigFault.params.tokens) >= 0 ? Number(bigFault.params.tokens) : 100000,
			);
			answer = tokens.join('');
		} else if (typeof flow.tokens === 'function') {
			tokens = flow.tokens(body);
			answer =
				typeof flow.answer === 'function'
					? String(flow.answer(body, sessionView, options))
					: tokens.join('');
		} else {
			answer = String(
				/** @type {NonNullable<Flow['answer']>} */ (flow.answer)(body, sessionView, options),
			);
			tokens = splitTokens(answer);
		}
		const tools = typeof flow.tools === 'function' ? flow.tools(body) : flow.tools || [];
		const preamble =
			typeof flow.preambleTokens === 'function'
				? flow.preambleTokens(body)
				: flow.preambleTokens || [];
		const delayMs =
			typeof flow.delayMs === 'function' ? Number(flow.delayMs(body)) : flow.delayMs || 0;
		return {
			flowId,
			flow,
			body,
			options,
			stream,
			events,
			version,
			session,
			faults,
			tokens,
			answer,
			tools,
			preamble,
			delayMs,
			real: flow.shape === 'real' || flow.shape === 'sdk',
			sdk: flow.shape === 'sdk',
		};
	} catch (err) {
		throw new HttpError(500, `Flow '${flowId}' failed: ${/** @type {Error} */ (err).message}`);
	}
}

/**
 * The run's session: the one named (refused by a session-error fault, 400 when unknown) or a new one.
 * @param {import('../types').Context} ctx
 * @param {import('node:http').IncomingMessage} req
 * @param {string} flowId
 * @param {string | null | undefined} sessionId
 */
function loadSession(ctx, req, flowId, sessionId) {
	if (!sessionId) return ctx.store.createSession(flowId, {});
	// an expired session is refused while the run request loads, before the flow runs
	const [refused] = takeFaults(ctx, req, 'run', SESSION_FAULTS, true);
	if (refused) {
		const status = Number(refused.params.status) >= 400 ? Number(refused.params.status) : 500;
		throw new HttpError(status, `Error loading session ${sessionId}`);
	}
	const session = ctx.store.getSession(sessionId);
	if (!session) throw badRequest(`Error loading session ${sessionId}: session not found`);
	return session;
}

module.exports = { TAGS, validateRun, loadRun };
