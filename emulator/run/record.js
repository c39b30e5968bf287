'use strict';
/** Run, the record: created when the run starts, completed when it ends. */
const { newId, iso } = require('../util');
const { textOf } = require('../flows');

/**
 * The record of a run that has just started (`status: 'running'`), stored at once.
 * @param {import('../types').Context} ctx
 * @param {import('./request').RunPlan} plan
 * @param {number} startMs
 */
function startRecord(ctx, plan, startMs) {
	const { flowId, body, options, version, session, stream } = plan;
	const startTime = iso(startMs);
	const id = newId('req');
	const ev = options.evalOptions;
	const rec = {
		tags: /** @type {string[]} */ ([]),
		id,
		flow_id: flowId,
		flow_session_id: /** @type {string} */ (session.id),
		body,
		requestParams: { stream },
		runOptions: options,
		override: options.override || {},
		status: 'running',
		top_request_id: id,
		userMessage: { id: newId('msg'), date: startTime, role: 'user', content: textOf(body) },
		flow_history_id: `fh_${flowId}_${version}`,
		version,
		response: /** @type {Record<string, any>} */ ({}),
		aiMessage: {
			id: newId('msg'),
			date: startTime,
			role: 'assistant',
			steps: /** @type {any[]} */ ([]),
			content: '',
		},
		eval_job_id: ev && ev.runMode !== 'skip' ? newId('evj') : null,
		startTime,
		endTime: /** @type {string|null} */ (null),
		duration: /** @type {number|null} */ (null),
		created: startTime,
		modified: startTime,
		owner_uid: ctx.ownerUid,
		modified_uid: ctx.ownerUid,
		account_id: ctx.accountId,
		project_id: ctx.projectId,
	};
	ctx.store.put(rec);
	return rec;
}

/** @typedef {ReturnType<typeof startRecord>} RunRecord */

/**
 * The record as it will be once the run ends (a copy: `rec` itself is still running).
 * @param {RunRecord} rec
 * @param {import('./request').RunPlan} plan
 * @param {number} startMs
 * @returns {RunRecord}
 */
function completedRecord(rec, plan, startMs) {
	const { flow } = plan;
	const status = flow.status || 'complete';
	const endMs = Date.now();
	const end = iso(endMs);
	// A flow with status 'pending' or 'running' answers a record that has not finished.
	if (status !== 'complete' && status !== 'error') return { ...rec, status, modified: end };
	const questions = flow.suggestedQuestions ? { suggestedQuestions: flow.suggestedQuestions } : {};
	return {
		...rec,
		status,
		response:
			status === 'error'
				? { error: flow.errorMessage || 'Flow failed' }
				: { text_output: plan.answer, ...questions },
		aiMessage: { ...rec.aiMessage, content: plan.answer, date: end },
		endTime: end,
		duration: endMs - startMs,
		modified: end,
	};
}

/**
 * End the run: the record takes its final fields (`completed`, or computed now), the session
 * is touched and export sees the record.
 * @param {import('../types').Context} ctx
 * @param {RunRecord} rec
 * @param {RunRecord} completed
 * @param {import('./request').RunPlan} plan
 */
function finishRecord(ctx, rec, completed, plan) {
	Object.assign(rec, completed);
	plan.session.modified = rec.endTime;
	ctx.store.reindex(rec);
}

module.exports = { startRecord, completedRecord, finishRecord };
