'use strict';
/**
 * Small shared helpers: ids, timestamps, error answers, JSON bodies,
 * positional-parameter validation and cancellable sleeps.
 */
const crypto = require('node:crypto');

let pool = Buffer.alloc(0);
let poolPos = 0;

/** Random id like `req_1f3a9c0b7d2e4a66` (random bytes drawn from a pool: seeding 100k records stays fast). @param {string} prefix */
function newId(prefix) {
	if (poolPos + 8 > pool.length) {
		pool = crypto.randomBytes(8 * 4096);
		poolPos = 0;
	}
	poolPos += 8;
	return `${prefix}_${pool.toString('hex', poolPos - 8, poolPos)}`;
}

/** ISO 8601 with milliseconds and `Z`. @param {number} [ms] */
function iso(ms) {
	return new Date(ms === undefined ? Date.now() : ms).toISOString();
}

/** @type {Record<number, string>} */
const STATUS_CODES = {
	400: 'BAD_REQUEST',
	401: 'UNAUTHORIZED',
	403: 'FORBIDDEN',
	404: 'NOT_FOUND',
	405: 'BAD_REQUEST',
	413: 'BAD_REQUEST',
	414: 'BAD_REQUEST',
	429: 'RATE_LIMITED',
	431: 'BAD_REQUEST',
	500: 'INTERNAL',
	503: 'UNAVAILABLE',
};

/** An error that maps to an HTTP answer `{ error: { code, message } }`. */
class HttpError extends Error {
	/**
	 * @param {number} status
	 * @param {string} message
	 * @param {Record<string,string>} [headers]
	 */
	constructor(status, message, headers) {
		super(message);
		this.status = status;
		this.code = STATUS_CODES[status] || 'INTERNAL';
		this.headers = headers || {};
	}
}

const badRequest = (/** @type {string} */ m) => new HttpError(400, m);
const notFound = (/** @type {string} */ m) => new HttpError(404, m);

/**
 * Send a JSON answer and note its status in the request log entry.
 * @param {import('node:http').ServerResponse} res
 * @param {number} status
 * @param {unknown} payload
 * @param {Record<string,string>} [headers]
 */
function sendJson(res, status, payload, headers) {
	if (res.headersSent || res.destroyed) return;
	const body = Buffer.from(JSON.stringify(payload));
	const entry = /** @type {any} */ (res).logEntry;
	if (entry) entry.status = status;
	res.writeHead(status, {
		'Content-Type': 'application/json; charset=utf-8',
		'Content-Length': String(body.length),
		...(headers || {}),
	});
	res.end(body);
}

/**
 * @param {import('node:http').ServerResponse} res
 * @param {HttpError|Error} err
 */
function sendError(res, err) {
	const e =
		err instanceof HttpError ? err : new HttpError(500, `Unexpected error: ${err && err.message}`);
	sendJson(res, e.status, { error: { code: e.code, message: e.message } }, e.headers);
}

/**
 * Read the whole request body (chunks collected, concatenated once).
 * @param {import('node:http').IncomingMessage} req
 * @returns {Promise<Buffer>}
 */
function readBody(req) {
	return new Promise((resolve, reject) => {
		/** @type {Buffer[]} */
		const chunks = [];
		req.on('data', (c) => chunks.push(c));
		req.on('end', () => resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)));
		req.on('error', reject);
		req.on('aborted', () => reject(new Error('request aborted')));
	});
}

/** @param {unknown} v @returns {v is Record<string, any>} */
function isPlainObject(v) {
	return typeof v === 'object' && v !== null && !Array.isArray(v) && !Buffer.isBuffer(v);
}

/**
 * Validate `{ params: [...] }` and give accessors that answer 400 naming the index and name.
 * @param {any} body
 */
function positional(body) {
	if (!isPlainObject(body))
		throw badRequest('Request body must be a JSON object { "params": [...] }');
	if (!Array.isArray(body.params)) throw badRequest('"params" must be an array');
	const params = body.params;
	const where = (/** @type {number} */ i, /** @type {string} */ name) => `params[${i}] (${name})`;
	return {
		params,
		/** Required non-empty string. */
		string(/** @type {number} */ i, /** @type {string} */ name) {
			const v = params[i];
			if (v === undefined || v === null) throw badRequest(`${where(i, name)} is required`);
			if (typeof v !== 'string' || v === '')
				throw badRequest(`${where(i, name)} must be a non-empty string`);
			return v;
		},
		/** Optional string: undefined/null/'' -> undefined. */
		optString(/** @type {number} */ i, /** @type {string} */ name) {
			const v = params[i];
			if (v === undefined || v === null || v === '') return undefined;
			if (typeof v !== 'string') throw badRequest(`${where(i, name)} must be a string`);
			return v;
		},
		/** Required plain object. */
		object(/** @type {number} */ i, /** @type {string} */ name) {
			const v = params[i];
			if (v === undefined || v === null) throw badRequest(`${where(i, name)} is required`);
			if (!isPlainObject(v)) throw badRequest(`${where(i, name)} must be an object`);
			return v;
		},
		/** Optional ISO date -> ms. */
		optDate(/** @type {number} */ i, /** @type {string} */ name) {
			const v = params[i];
			if (v === undefined || v === null || v === '') return undefined;
			if (typeof v !== 'string' || Number.isNaN(Date.parse(v))) {
				throw badRequest(`${where(i, name)} must be an ISO 8601 date string`);
			}
			return Date.parse(v);
		},
		where,
	};
}

/**
 * Sleeps that the emulator can cancel all at once on close().
 * @param {{ timers: Set<import('./types').Timer> }} ctx
 * @param {number} ms
 * @returns {Promise<void>}
 */
function sleep(ctx, ms) {
	return new Promise((resolve) => {
		const item = {
			t: setTimeout(
				() => {
					ctx.timers.delete(item);
					resolve();
				},
				Math.max(0, ms),
			),
			resolve,
		};
		ctx.timers.add(item);
	});
}

/**
 * Behaviour `answerShape: 'mismatched'`: `value` in another shape than its own (an array
 * becomes an object, an object an array, a string an object), as a misrouted gateway might.
 * @param {any} value
 * @returns {any}
 */
function mismatched(value) {
	if (Array.isArray(value)) return { items: value };
	if (typeof value === 'string') return { url: value };
	return [value];
}

module.exports = {
	mismatched,
	newId,
	iso,
	HttpError,
	badRequest,
	notFound,
	sendJson,
	sendError,
	readBody,
	isPlainObject,
	positional,
	sleep,
};
