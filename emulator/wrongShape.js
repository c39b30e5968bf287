'use strict';
/**
 * `wrong-shape`: a 200 that is not the endpoint's answer, as a proxy, a captive portal or
 * another service at the Base URL gives it (before authentication; nothing runs):
 * `shape=html` a login page (text/html), `shape=empty` `{}`, `shape=results` `{"results":[]}`
 * (another endpoint's shape, no `hasMore`), `shape=list` `[{"status":"ok"}]`,
 * `shape=empty-list` `[]`, `shape=text` the plain text `OK`.
 */
const { takeFaults } = require('./faults');

/** @type {Record<string, { type: string, body: string }>} */
const SHAPES = {
	html: {
		type: 'text/html; charset=utf-8',
		body: '<!DOCTYPE html><html><head><title>Sign in</title></head><body><form><input name="user"></form></body></html>',
	},
	empty: { type: 'application/json; charset=utf-8', body: '{}' },
	results: { type: 'application/json; charset=utf-8', body: '{"results":[]}' },
	list: { type: 'application/json; charset=utf-8', body: '[{"status":"ok"}]' },
	'empty-list': { type: 'application/json; charset=utf-8', body: '[]' },
	text: { type: 'text/plain; charset=utf-8', body: 'OK' },
};

/**
 * Answers a `wrong-shape` fault of this request; returns true when answered.
 * @param {import('./types').Context} ctx
 * @param {import('node:http').IncomingMessage} req
 * @param {import('node:http').ServerResponse} res
 * @param {import('./types').EndpointName} endpoint
 */
function answerWrongShape(ctx, req, res, endpoint) {
	const [fault] = takeFaults(ctx, req, endpoint, ['wrong-shape'], true);
	if (!fault) return false;
	const shape = SHAPES[String(fault.params.shape ?? 'html')];
	if (!shape) throw new Error(`wrong-shape: unknown shape "${fault.params.shape}"`);
	const entry = /** @type {any} */ (res).logEntry;
	if (entry) entry.status = 200;
	res.writeHead(200, {
		'Content-Type': shape.type,
		'Content-Length': String(Buffer.byteLength(shape.body)),
	});
	res.end(shape.body);
	return true;
}

module.exports = { answerWrongShape, WRONG_SHAPES: Object.keys(SHAPES) };
