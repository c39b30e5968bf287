'use strict';
/**
 * Fault injection: armed faults (emu.injectFault) and per-request faults
 * (header `X-Emulator-Fault: <type>[;key=value;...][, <type>...]`).
 */

/**
 * @typedef {{ type: string, params: Record<string, any> }} Fault
 * @typedef {Fault & { endpoint: string | null, times: number, skip: number }} ArmedFault
 */

/** 400/413/414/431: what a proxy answers when the request never reached the flow. */
const STATUS_FAULTS = ['400', '413', '414', '429', '431', '500', '503'];
const STREAM_FAULTS = [
	'drop',
	'malformed',
	'no-final',
	'stall',
	'token-delay',
	'big-stream',
	'split-utf8',
	'huge-line',
	'whole-answer',
];
/**
 * An answer sent whole (`application/json`: a run's record, streamed run or blocking, or any
 * positional endpoint's answer) that stops after half its bytes (`bytes=N`: after N):
 * `whole-answer-stall` keeps the connection open until the client goes away,
 * `whole-answer-drop` drops it. A run's flow ran (its record is complete).
 */
const WHOLE_ANSWER_HALFWAY_FAULTS = ['whole-answer-stall', 'whole-answer-drop'];
const EXPORT_FAULTS = ['same-cursor', 'empty-page'];
/** Refusals of a run's `flow_session_id`, consumed only by a run that names a session. */
const SESSION_FAULTS = ['session-error'];
/** A hostile service (hostile.js): the key quoted back; signed links and redirects elsewhere. */
const HOSTILE_FAULTS = [
	'echo-key',
	'echo-key-answer',
	'echo-key-stream',
	'link-elsewhere',
	'redirect',
];
/** A 200 that is not the endpoint's answer (wrongShape.js). */
const SHAPE_FAULTS = ['wrong-shape'];
const ALL_FAULTS = [
	...STATUS_FAULTS,
	...STREAM_FAULTS,
	...WHOLE_ANSWER_HALFWAY_FAULTS,
	...EXPORT_FAULTS,
	...SESSION_FAULTS,
	...HOSTILE_FAULTS,
	...SHAPE_FAULTS,
];

/** @param {string} v */
function parseValue(v) {
	if (/^-?\d+(\.\d+)?$/.test(v)) return Number(v);
	if (v === 'true') return true;
	if (v === 'false') return false;
	return v;
}

/**
 * Parse `429;retryAfter=2, drop;afterEvents=5` into fault objects.
 * @param {string} spec
 * @returns {Fault[]}
 */
function parseFaultSpec(spec) {
	return String(spec)
		.split(',')
		.map((s) => s.trim())
		.filter(Boolean)
		.map((one) => {
			const [type, ...rest] = one.split(';').map((s) => s.trim());
			/** @type {Record<string, any>} */
			const params = {};
			for (const kv of rest) {
				if (!kv) continue;
				const eq = kv.indexOf('=');
				if (eq < 0) params[kv] = true;
				else params[kv.slice(0, eq).trim()] = parseValue(kv.slice(eq + 1).trim());
			}
			return { type: type.toLowerCase(), params };
		});
}

/** @param {string} type */
function checkType(type) {
	if (!ALL_FAULTS.includes(type)) {
		throw new Error(`Unknown emulator fault "${type}". Known: ${ALL_FAULTS.join(', ')}`);
	}
}

/**
 * Arm a fault for the next `times` matching requests, after `skip` matching requests that pass
 * untouched (e.g. the third page of an export).
 * @param {import('./types').Context} ctx
 * @param {string | {type: string, [k: string]: any}} fault
 * @param {{ endpoint?: string, times?: number, skip?: number, [k: string]: any }} [options]
 */
function injectFault(ctx, fault, options = {}) {
	const { endpoint, times = 1, skip = 0, ...extra } = options || {};
	/** @type {{type: string, params: Record<string, any>}} */
	let parsed;
	if (typeof fault === 'string') {
		parsed = parseFaultSpec(fault)[0];
		if (!parsed) throw new Error('injectFault: empty fault');
	} else if (fault && typeof fault === 'object' && typeof fault.type === 'string') {
		const { type, ...params } = fault;
		parsed = { type: type.toLowerCase(), params };
	} else {
		throw new Error(
			'injectFault: fault must be a string like "429" or an object { type, ...params }',
		);
	}
	checkType(parsed.type);
	/** @type {ArmedFault} */
	const armed = {
		type: parsed.type,
		params: { ...parsed.params, ...extra },
		endpoint: endpoint || null,
		times: Math.max(1, Math.floor(times)),
		skip: Math.max(0, Math.floor(skip)),
	};
	ctx.faults.push(armed);
	return armed;
}

/**
 * Take the faults of the given types that apply to this request.
 * Header faults win (armed faults are then not consumed).
 * @param {import('./types').Context} ctx
 * @param {import('node:http').IncomingMessage} req
 * @param {string} endpoint
 * @param {string[]} types
 * @param {boolean} [firstOnly]
 * @returns {Fault[]}
 */
function takeFaults(ctx, req, endpoint, types, firstOnly = false) {
	const header = req.headers['x-emulator-fault'];
	if (header !== undefined) {
		const list = parseFaultSpec(Array.isArray(header) ? header.join(',') : header).filter((f) =>
			types.includes(f.type),
		);
		return firstOnly ? list.slice(0, 1) : list;
	}
	/** @type {Fault[]} */
	const out = [];
	for (const armed of ctx.faults) {
		if (armed.times <= 0) continue;
		if (armed.endpoint && armed.endpoint !== endpoint) continue;
		if (!types.includes(armed.type)) continue;
		if (out.some((f) => f.type === armed.type)) continue;
		if (armed.skip > 0) {
			armed.skip -= 1;
			continue;
		}
		armed.times -= 1;
		out.push({ type: armed.type, params: armed.params });
		if (firstOnly) break;
	}
	ctx.faults = ctx.faults.filter((f) => f.times > 0);
	return out;
}

/**
 * The `Retry-After` value of a 429/503 fault: `retryAfterDate=N` gives the HTTP date N seconds
 * from now; `retryAfter` a number of seconds (or any text, sent as is). 429 defaults to 1 second.
 * @param {string} type
 * @param {Record<string, any>} params
 * @returns {string | undefined}
 */
function retryAfterHeader(type, params) {
	if (params.retryAfterDate !== undefined) {
		return new Date(Date.now() + Number(params.retryAfterDate) * 1000).toUTCString();
	}
	if (params.retryAfter !== undefined) return String(params.retryAfter);
	return type === '429' ? '1' : undefined;
}

/** @param {Fault[]} faults @param {string} type */
function findFault(faults, type) {
	return faults.find((f) => f.type === type);
}

module.exports = {
	STATUS_FAULTS,
	STREAM_FAULTS,
	WHOLE_ANSWER_HALFWAY_FAULTS,
	EXPORT_FAULTS,
	SESSION_FAULTS,
	ALL_FAULTS,
	retryAfterHeader,
	parseFaultSpec,
	injectFault,
	takeFaults,
	findFault,
};
