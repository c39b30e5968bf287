'use strict';
/**
 * Flow request records: POST flow_requests/export (cursor pages, the export faults, the
 * unknown-flow behaviour) and flow_requests/loadByFlowSession.
 */
const { badRequest, notFound, positional } = require('./util');
const { takeFaults, EXPORT_FAULTS } = require('./faults');
const { encodeCursor, decodeCursor } = require('./cursor');

/** Cursor used by the same-cursor/empty-page faults for "before the first record". */
const START = { t: -8640000000000000, id: '' };

/**
 * @param {import('./types').Context} ctx
 * @param {import('node:http').IncomingMessage} req
 * @param {any} body
 */
function exportPage(ctx, req, body) {
	const p = positional(body);
	const flowId = p.string(0, 'flowId');
	const afterCursor = p.optString(1, 'afterCursor');
	const after = afterCursor === undefined ? undefined : decodeCursor(afterCursor);
	const limit = p.params[2];
	if (!Number.isInteger(limit) || limit < 1 || limit > 1000) {
		throw badRequest('params[2] (limit) must be an integer from 1 to 1000');
	}
	const from = p.optDate(3, 'fromDate');
	const to = p.optDate(4, 'toDate');
	if (
		ctx.behavior.unknownFlowExport === 'notFound' &&
		!ctx.flows.has(flowId) &&
		!ctx.store.hasRecordsOf(flowId)
	) {
		throw notFound(`Flow '${flowId}' not found in project '${ctx.projectId}'`);
	}
	const page = ctx.store.exportPage(flowId, { after, limit, from, to });
	const [fault] = takeFaults(ctx, req, 'export', EXPORT_FAULTS, true);
	if (fault && fault.type === 'same-cursor') {
		return {
			results: page.results,
			nextCursor: afterCursor !== undefined ? afterCursor : encodeCursor(START.t, START.id),
			hasMore: true,
		};
	}
	if (fault && fault.type === 'empty-page') {
		const pos = after || START;
		return {
			results: [],
			nextCursor: encodeCursor(pos.t, pos.id, { n: Date.now() % 100000 }),
			hasMore: true,
		};
	}
	return { results: page.results, nextCursor: page.nextCursor, hasMore: page.hasMore };
}

/**
 * POST flow_requests/loadByFlowSession [flowId, sessionId]
 * @param {import('./types').Context} ctx
 * @param {any} body
 */
function loadByFlowSession(ctx, body) {
	const p = positional(body);
	const flowId = p.string(0, 'flowId');
	const sessionId = p.string(1, 'sessionId');
	return { results: ctx.store.loadByFlowSession(flowId, sessionId) };
}

module.exports = { exportPage, loadByFlowSession };
