'use strict';
/**
 * A hostile or broken service (off unless a fault asks for it): answers that quote the API key
 * back (raw, JSON-escaped, split across two chunks, or re-encoded: see ENCODED), signed links that point elsewhere, and
 * downloads that redirect elsewhere. These answers come before authentication, as a proxy's
 * would: any key is quoted, and no flow runs.
 */
const { HttpError, sendError, sleep } = require('./util');
const { takeFaults } = require('./faults');

const KEY_FAULTS = ['echo-key', 'echo-key-answer', 'echo-key-stream'];

/**
 * The key as the answer quotes it. `raw`: as sent; `escaped`: inside a JSON text that is itself
 * a string of the answer (so the key is JSON-escaped in the parsed answer); `split`: as `raw`,
 * the answer's bytes then cut in two chunks inside the key. `pad=N`: N dots before it, to move
 * the key to where a client shortens a quote.
 * @param {string} key @param {Record<string, any>} params
 */
function echoOf(key, params) {
	const pad = '.'.repeat(Math.max(0, Number(params.pad) || 0));
	if (params.form === 'escaped') {
		return `${pad}Request was ${JSON.stringify({ headers: { authorization: key } })}`;
	}
	const encoded = ENCODED[String(params.form)];
	if (encoded) return `${pad}${encoded(key)}`;
	return `${pad}Authorization: ${key}`;
}

/**
 * The key as a server or proxy may re-encode it: `url` (in a query string), `base64` (a Basic
 * header of "user:key"), `unicode` (every character `\u`-escaped), `upper` (upper-cased),
 * `wrapped` (over two lines).
 * @type {Record<string, (key: string) => string>}
 */
const ENCODED = {
	url: (key) => `GET /api/v1/flows?api_key=${encodeURIComponent(key)}`,
	base64: (key) => `Authorization: Basic ${Buffer.from(`user:${key}`).toString('base64')}`,
	unicode: (key) =>
		`Authorization: ${[...key].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')}`,
	upper: (key) => `AUTHORIZATION: ${key.toUpperCase()}`,
	wrapped: (key) => `Authorization: ${key.slice(0, 9)}\r\n    ${key.slice(9)}`,
};

/**
 * Writes `body`; with `form=split` in two chunks cut inside the key.
 * @param {import('./types').Context} ctx
 * @param {import('node:http').ServerResponse} res
 * @param {number} status
 * @param {Record<string, string>} headers
 * @param {string} body
 * @param {string} key
 * @param {Record<string, any>} params
 */
async function writeQuoting(ctx, res, status, headers, body, key, params) {
	const bytes = Buffer.from(body);
	const entry = /** @type {any} */ (res).logEntry;
	if (entry) entry.status = status;
	res.writeHead(status, { ...headers, 'Content-Length': String(bytes.length) });
	// The key as it stands in the body: raw, or JSON-escaped when it has `"` or `\`.
	const inBody = [key, JSON.stringify(key).slice(1, -1)].find((form) => body.includes(form));
	const at = params.form === 'split' && inBody ? bytes.indexOf(Buffer.from(inBody)) : -1;
	if (at < 0) {
		res.end(bytes);
		return;
	}
	const cut = at + Math.max(1, Buffer.byteLength(String(inBody)) >> 1);
	res.write(bytes.subarray(0, cut));
	await sleep(ctx, 20);
	if (!res.destroyed) res.end(bytes.subarray(cut));
}

/**
 * The key faults of this request. `echo-key` is noted on the response (every error answer of
 * the request then quotes the key); the others answer here. Returns true when answered.
 * @param {import('./types').Context} ctx
 * @param {import('node:http').IncomingMessage} req
 * @param {import('node:http').ServerResponse} res
 * @param {import('./types').EndpointName} endpoint
 * @param {string|undefined} flowId
 */
async function answerKeyFault(ctx, req, res, endpoint, flowId) {
	const [fault] = takeFaults(ctx, req, endpoint, KEY_FAULTS, true);
	if (!fault) return false;
	const key = String(req.headers.authorization ?? '');
	if (fault.type === 'echo-key') {
		/** @type {any} */ (res).echoKey = { key, params: fault.params };
		return false;
	}
	if (fault.type === 'echo-key-answer') {
		// Another shape than the endpoint's: a list where a record or link belongs, an object
		// with no `results` where a list or page belongs.
		const echo = echoOf(key, fault.params);
		const list = ['export', 'loadByFlowSession', 'queryMetadata'].includes(endpoint);
		const body = JSON.stringify(list ? { echo } : [{ echo }]);
		const headers = { 'Content-Type': 'application/json; charset=utf-8' };
		await writeQuoting(ctx, res, 200, headers, body, key, fault.params);
		return true;
	}
	await streamQuoting(ctx, res, key, flowId || 'flow', fault.params);
	return true;
}

/**
 * `echo-key-stream`: a streamed run whose log event and final line (status `error`) quote the
 * key; `line=malformed` / `line=bad-token`: that line is not JSON (see badLine).
 * @param {import('./types').Context} ctx
 * @param {import('node:http').ServerResponse} res
 * @param {string} key
 * @param {string} flowId
 * @param {Record<string, any>} params
 */
async function streamQuoting(ctx, res, key, flowId, params) {
	const echo = echoOf(key, params);
	const lines = [
		JSON.stringify({ tag: 'onFlowStart', data: { flowId, requestId: 'req_echo' } }),
		badLine(params.line, key, echo) ??
			JSON.stringify({ tag: 'onLog', data: { level: 'error', message: echo } }),
		JSON.stringify({
			id: 'req_echo',
			flow_id: flowId,
			status: 'error',
			response: { error: `The flow failed. ${echo}` },
		}),
	];
	const headers = { 'Content-Type': 'application/x-ndjson' };
	await writeQuoting(ctx, res, 200, headers, `${lines.join('\n')}\n`, key, params);
}

/**
 * A line that is not JSON: `malformed` ends right after the quoted key; `bad-token` has the key
 * as a bare value, so that a JSON parser's error message quotes its start.
 * @param {unknown} line @param {string} key @param {string} echo
 */
function badLine(line, key, echo) {
	if (line === 'malformed') return `{"tag":"onLog","data":{"message":"${echo}`;
	if (line === 'bad-token') return `{"tag":"onLog","data":${key}}`;
	return undefined;
}

/**
 * `link-elsewhere` on getTemporarySignedUrl: the link points at `url`, or `to=host` (another
 * host, http), `to=file` (file:///etc/passwd). Changes the answer in place.
 * @param {import('./types').Context} ctx
 * @param {import('node:http').IncomingMessage} req
 * @param {string} endpoint
 * @param {{ body: any }} answer
 */
function rewriteLink(ctx, req, endpoint, answer) {
	if (endpoint !== 'getTemporarySignedUrl') return;
	const [fault] = takeFaults(ctx, req, endpoint, ['link-elsewhere'], true);
	if (!fault) return;
	const link = new URL(answer.body.results);
	answer.body.results = elsewhere(ctx, fault.params, `${link.pathname}${link.search}`);
}

/**
 * Where a link or redirect leads: `url`, `to=file`, `to=self` (the same path on the emulator:
 * a redirect a client may follow), else another host.
 * @param {import('./types').Context} ctx @param {Record<string, any>} params @param {string} path
 */
function elsewhere(ctx, params, path) {
	if (typeof params.url === 'string') return params.url;
	if (params.to === 'file') return 'file:///etc/passwd';
	if (params.to === 'self') return `${ctx.origin}${path}`;
	return `http://files.example.invalid${path}`;
}

/**
 * `redirect;status=302` on a download: 301/302/307 to `url`, `to=host` or `to=file`.
 * Returns true when answered.
 * @param {import('./types').Context} ctx
 * @param {import('node:http').IncomingMessage} req
 * @param {import('node:http').ServerResponse} res
 * @param {URL} url
 */
function redirectDownload(ctx, req, res, url) {
	const [fault] = takeFaults(ctx, req, 'download', ['redirect'], true);
	if (!fault) return false;
	const status = [301, 302, 307].includes(Number(fault.params.status))
		? Number(fault.params.status)
		: 302;
	const entry = /** @type {any} */ (res).logEntry;
	if (entry) entry.status = status;
	res.writeHead(status, { Location: elsewhere(ctx, fault.params, `${url.pathname}${url.search}`) });
	res.end();
	return true;
}

/**
 * An error answer; with `echo-key` armed, its message quotes the key.
 * @param {import('./types').Context} ctx
 * @param {import('node:http').ServerResponse} res
 * @param {Error} err
 */
function sendErrorQuoting(ctx, res, err) {
	const echo = /** @type {any} */ (res).echoKey;
	if (!echo) return sendError(res, err);
	const e =
		err instanceof HttpError ? err : new HttpError(500, `Unexpected error: ${err && err.message}`);
	const message = `${e.message}. ${echoOf(echo.key, echo.params)}`;
	const body = JSON.stringify({ error: { code: e.code, message } });
	const headers = { 'Content-Type': 'application/json; charset=utf-8', ...e.headers };
	writeQuoting(ctx, res, e.status, headers, body, echo.key, echo.params).catch(() => {});
}

module.exports = {
	answerKeyFault,
	rewriteLink,
	redirectDownload,
	sendErrorQuoting,
};
