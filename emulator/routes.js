'use strict';
/**
 * The emulator's endpoints, one row each: the path after `/api/v1/accounts/:a/projects/:p/`, the
 * name the request log and faults use, and the handler that answers it. Adding an endpoint is one
 * row here plus its handler; the router, the fault targets and the `EndpointName` type read it.
 */
const { createSession } = require('./sessions');
const { exportPage, loadByFlowSession } = require('./flowRequests');

/**
 * `answer(ctx, req, payload)` gives the endpoint's body in its default shape; `wrapped`: the body
 * is `{ results, ... }`. Upload has no `answer`: its multipart body goes to `ctx.documents.upload`.
 * @typedef {import('./types').Context} Context
 * @typedef {(ctx: Context, req: import('node:http').IncomingMessage, payload: any) => any} Answer
 */
const POSITIONAL_ROUTES = /** @type {const} */ ({
	'flow_sessions/createSession': {
		name: 'createSession',
		wrapped: false,
		/** @type {Answer} */ answer: (ctx, _req, payload) => createSession(ctx, payload),
	},
	'flow_requests/export': {
		name: 'export',
		wrapped: true,
		/** @type {Answer} */ answer: (ctx, req, payload) => exportPage(ctx, req, payload),
	},
	'flow_requests/loadByFlowSession': {
		name: 'loadByFlowSession',
		wrapped: true,
		/** @type {Answer} */ answer: (ctx, _req, payload) => loadByFlowSession(ctx, payload),
	},
	'documents/getTemporarySignedUrl': {
		name: 'getTemporarySignedUrl',
		wrapped: true,
		/** @type {Answer} */ answer: (ctx, _req, payload) =>
			ctx.documents.getTemporarySignedUrl(payload),
	},
	'documents/loadByLogicalPath': {
		name: 'loadByLogicalPath',
		wrapped: true,
		/** @type {Answer} */ answer: (ctx, _req, payload) => ctx.documents.loadByLogicalPath(payload),
	},
	'documents/upload-file': { name: 'uploadFile', wrapped: false, answer: undefined },
	'indexes/getStatus': {
		name: 'getStatus',
		wrapped: true,
		/** @type {Answer} */ answer: (ctx, _req, payload) => ctx.indexes.getStatus(payload),
	},
	'indexes/queryMetadata': {
		name: 'queryMetadata',
		wrapped: true,
		/** @type {Answer} */ answer: (ctx, _req, payload) => ctx.indexes.queryMetadata(payload),
	},
});

/** @typedef {typeof POSITIONAL_ROUTES[keyof typeof POSITIONAL_ROUTES]['name']} PositionalName */

/** Every endpoint a fault can target: a run, the positional ones, a signed link's download. */
const ENDPOINTS = /** @type {Array<'run' | PositionalName | 'download'>} */ ([
	'run',
	...Object.values(POSITIONAL_ROUTES).map((route) => route.name),
	'download',
]);

module.exports = { POSITIONAL_ROUTES, ENDPOINTS };
