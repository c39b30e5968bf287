'use strict';
/**
 * POST .../flows/{flow_id}/run: load the request, start the record, then answer blocking (the
 * record) or streamed (NDJSON events, then the record).
 */
const { findFault } = require('../faults');
const { mismatched, newId, sendJson, sleep } = require('../util');
const { legacyStep, finishedRealStep } = require('../steps');
const { loadRun } = require('./request');
const { startRecord, completedRecord, finishRecord } = require('./record');
const { streamRun } = require('./stream');

/**
 * @param {import('../types').Context} ctx
 * @param {import('node:http').IncomingMessage} req
 * @param {import('node:http').ServerResponse} res
 * @param {string} flowId
 * @param {any} payload parsed JSON body
 */
async function handleRun(ctx, req, res, flowId, payload) {
	const plan = loadRun(ctx, req, flowId, payload);
	const startMs = Date.now();
	const rec = startRecord(ctx, plan, startMs);
	// The fault 'whole-answer': a server that ignores `stream` and answers the whole record.
	if (plan.stream === 'http' && !findFault(plan.faults, 'whole-answer')) {
		return streamRun(ctx, res, plan, rec, startMs);
	}

	if (plan.delayMs) await sleep(ctx, plan.delayMs);
	rec.aiMessage.steps = plan.tools.map((tool) =>
		plan.real
			? finishedRealStep(tool, newId('step'), rec.startTime)
			: legacyStep(tool, newId('run')),
	);
	finishRecord(ctx, rec, completedRecord(rec, plan, startMs), plan);
	sendJson(res, 200, ctx.behavior.answerShape === 'mismatched' ? mismatched(rec) : rec);
}

module.exports = { handleRun };
