'use strict';
/** Flow sessions: POST flow_sessions/createSession [flow_id, session_data]. */
const { badRequest, notFound, isPlainObject, positional } = require('./util');

/**
 * @param {import('./types').Context} ctx
 * @param {any} body
 */
function createSession(ctx, body) {
	const p = positional(body);
	const flowId = p.string(0, 'flow_id');
	if (!ctx.flows.has(flowId))
		throw notFound(`Flow '${flowId}' not found in project '${ctx.projectId}'`);
	const state = p.object(1, 'session_data');
	for (const [name, store] of Object.entries(state)) {
		if (!isPlainObject(store) || !isPlainObject(store.variables)) {
			throw badRequest(
				`params[1] (session_data): store '${name}' must be an object { "variables": { ... } }`,
			);
		}
	}
	return ctx.store.createSession(flowId, state);
}

module.exports = { createSession };
