'use strict';
/**
 * Routing, request log, status faults, authentication and dispatch to the handlers.
 */
const {
	HttpError,
	badRequest,
	notFound,
	sendJson,
	readBody,
	isPlainObject,
	mismatched,
} = require('./util');
const {
	takeFaults,
	parseFaultSpec,
	ALL_FAULTS,
	STATUS_FAULTS,
	WHOLE_ANSWER_HALFWAY_FAULTS,
	retryAfterHeader,
} = require('./faults');
const { handleRun, sendHalf } = require('./run');
const { answerKeyFault, redirectDownload, rewriteLink, sendErrorQuoting } = require('./hostile');
const { answerWrongShape } = require('./wrongShape');
const { authenticate } = require('./auth');
const { POSITIONAL_ROUTES } = require('./routes');

const API_PREFIX = /^\/api\/v1\/accounts\/([^/]+)\/projects\/([^/]+)\/(.+)$/;

/** @type {Record<number, string>} The status faults' messages. */
const STATUS_MESSAGES = {
	400: 'Bad request',
	413: 'Payload too large',
	414: 'URI too long',
	429: 'Too many requests: rate limit exceeded',
	431: 'Request header fields too large',
	503: 'Service temporarily unavailable',
};

/** @param {string} s */
function decode(s) {
	try {
		return decodeURIComponent(s);
	} catch {
		throw badRequest(`Malformed path segment: ${s}`);
	}
}

/**
 * @param {string} method
 * @param {string} pathname
 * @returns {{ endpoint: import('./types').EndpointName, accountId?: string, projectId?: string, flowId?: string }}
 */
function route(method, pathname) {
	if (pathname.startsWith('/signed/') && (method === 'GET' || method === 'HEAD'))
		return { endpoint: 'download' };
	const m = API_PREFIX.exec(pathname);
	if (!m) return { endpoint: 'unknown' };
	const rest = m[3].replace(/\/+$/, '');
	const run = /^flows\/([^/]+)\/run$/.exec(rest);
	const positional = /** @type {Record<string, { name: import('./types').EndpointName }>} */ (
		POSITIONAL_ROUTES
	)[rest];
	const endpoint = run ? 'run' : positional?.name;
	if (!endpoint) return { endpoint: 'unknown' };
	return { endpoint, accountId: m[1], projectId: m[2], flowId: run ? run[1] : undefined };
}

/**
 * @param {import('./types').Context} ctx
 * @returns {(req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => void}
 */
function createHandler(ctx) {
	return (req, res) => {
		const method = req.method || 'GET';
		const url = new URL(req.url || '/', ctx.origin);
		const r = route(method, url.pathname);
		const entry = {
			endpoint: r.endpoint,
			method,
			path: req.url || '/',
			headers: { ...req.headers },
			body: /** @type {any} */ (undefined),
			status: /** @type {number|undefined} */ (undefined),
			receivedAt: Date.now(),
			respondedAt: /** @type {number|undefined} */ (undefined),
		};
		ctx.requests.push(entry);
		/** @type {any} */ (res).logEntry = entry;
		res.on('close', () => {
			if (entry.respondedAt === undefined) entry.respondedAt = Date.now();
			if (entry.status === undefined) entry.status = res.headersSent ? res.statusCode : 0;
		});
		handle(ctx, req, res, r, url, entry).catch((err) => {
			if (!res.headersSent) sendErrorQuoting(ctx, res, err);
			else if (!res.destroyed) res.destroy();
		});
	};
}

/**
 * @param {import('./types').Context} ctx
 * @param {import('node:http').IncomingMessage} req
 * @param {import('node:http').ServerResponse} res
 * @param {ReturnType<typeof route>} r
 * @param {URL} url
 * @param {any} entry
 */
async function handle(ctx, req, res, r, url, entry) {
	const raw = await readBody(req);
	const { endpoint } = r;

	/** @type {any} */
	let payload;
	/** @type {Error|undefined} */
	let jsonError;
	/** @type {any} */
	let upload;
	if (endpoint === 'uploadFile') {
		upload = ctx.documents.parseUpload(raw, req.headers['content-type'], entry);
	} else if (raw.length > 0) {
		const text = raw.toString('utf8');
		try {
			payload = JSON.parse(text);
			entry.body = payload;
		} catch {
			entry.body = text;
			jsonError = badRequest('Request body is not valid JSON');
		}
	}

	if (endpoint === 'unknown') throw notFound(`No such endpoint: ${req.method} ${url.pathname}`);
	if (endpoint !== 'download' && method(req) !== 'POST') {
		throw new HttpError(405, `Method ${req.method} not allowed; use POST`, { Allow: 'POST' });
	}

	// faults selected by header must name known faults
	const header = req.headers['x-emulator-fault'];
	if (header !== undefined) {
		for (const f of parseFaultSpec(Array.isArray(header) ? header.join(',') : header)) {
			if (!ALL_FAULTS.includes(f.type)) throw badRequest(`Unknown X-Emulator-Fault "${f.type}"`);
		}
	}

	// a proxy or service that quotes the key back: before the status faults, so that their
	// error answers quote it too
	if (await answerKeyFault(ctx, req, res, endpoint, r.flowId)) return;
	// a 200 that is not the endpoint's answer (a proxy's or a login page)
	if (answerWrongShape(ctx, req, res, endpoint)) return;

	// status faults (and drop, stall for non-streaming requests) are answered before anything else
	const isStreamRun =
		endpoint === 'run' &&
		isPlainObject(payload) &&
		isPlainObject(payload.options) &&
		payload.options.stream === 'http';
	const [early] = takeFaults(
		ctx,
		req,
		endpoint,
		isStreamRun ? STATUS_FAULTS : [...STATUS_FAULTS, 'drop', 'stall'],
		true,
	);
	if (early) {
		if (early.type === 'drop') {
			if (req.socket) req.socket.destroy();
			return;
		}
		// no answer at all until the client goes away (or emu.close())
		if (early.type === 'stall') return await new Promise((resolve) => res.once('close', resolve));
		const retryAfter = retryAfterHeader(early.type, early.params);
		/** @type {Record<string, string>} */
		const headers = retryAfter === undefined ? {} : { 'Retry-After': retryAfter };
		const status = Number(early.type);
		throw new HttpError(status, STATUS_MESSAGES[status] || 'Internal server error', headers);
	}

	if (endpoint === 'download') {
		if (redirectDownload(ctx, req, res, url)) return;
		ctx.documents.download(url, req, res);
		return;
	}

	const flowId = r.flowId === undefined ? undefined : decode(r.flowId);
	authenticate(ctx, req, endpoint, flowId);
	const accountId = decode(/** @type {string} */ (r.accountId));
	const projectId = decode(/** @type {string} */ (r.projectId));
	if (accountId !== ctx.accountId) throw notFound(`Account '${accountId}' not found`);
	if (projectId !== ctx.projectId)
		throw notFound(`Project '${projectId}' not found in account '${accountId}'`);
	if (jsonError) throw jsonError;

	if (endpoint === 'run') return handleRun(ctx, req, res, /** @type {string} */ (flowId), payload);
	if (endpoint === 'uploadFile') return ctx.documents.upload(upload, res);
	const answer = positionalAnswer(ctx, req, endpoint, payload);
	rewriteLink(ctx, req, endpoint, answer);
	const [halfway] = takeFaults(ctx, req, endpoint, WHOLE_ANSWER_HALFWAY_FAULTS, true);
	if (halfway) return sendHalf(ctx, res, wrapAnswer(ctx, answer), halfway);
	return sendJson(res, 200, wrapAnswer(ctx, answer));
}

/**
 * The answer of a positional endpoint, in its default shape (its row of routes.js).
 * @param {import('./types').Context} ctx
 * @param {import('node:http').IncomingMessage} req
 * @param {string} endpoint
 * @param {any} payload
 * @returns {{ wrapped: boolean, body: any }} `wrapped`: the body is `{ results, ... }`
 */
function positionalAnswer(ctx, req, endpoint, payload) {
	const route = Object.values(POSITIONAL_ROUTES).find((r) => r.name === endpoint);
	if (!route?.answer) throw notFound(`No such endpoint: ${endpoint}`);
	return { wrapped: route.wrapped, body: route.answer(ctx, req, payload) };
}

/**
 * Behaviour `answerWrapper: 'success'`: every positional answer becomes
 * `{ success: true, results: ... }` (fields beside `results` kept).
 * @param {import('./types').Context} ctx
 * @param {{ wrapped: boolean, body: any }} answer
 */
function wrapAnswer(ctx, answer) {
	if (ctx.behavior.answerShape === 'mismatched') {
		return answer.wrapped
			? { ...answer.body, results: mismatched(answer.body.results) }
			: mismatched(answer.body);
	}
	if (ctx.behavior.answerWrapper !== 'success') return answer.body;
	return answer.wrapped
		? { success: true, ...answer.body }
		: { success: true, results: answer.body };
}

/** @param {import('node:http').IncomingMessage} req */
function method(req) {
	return (req.method || '').toUpperCase();
}

module.exports = { createHandler, route };
