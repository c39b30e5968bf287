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
const { StreamOut, ABORT } = require('./streamOut');

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
	// The fault 'whole-answer' (and those that stop it halfway): a server that ignores `stream`
	// and answers the whole record.
	const halfway =
		findFault(plan.faults, 'whole-answer-stall') || findFault(plan.faults, 'whole-answer-drop');
	if (plan.stream === 'http' && !findFault(plan.faults, 'whole-answer') && !halfway) {
		return streamRun(ctx, res, plan, rec, startMs);
	}

	if (plan.delayMs) await sleep(ctx, plan.delayMs);
	rec.aiMessage.steps = plan.tools.map((tool) =>
		plan.real
			? finishedRealStep(tool, newId('step'), rec.startTime)
			: legacyStep(tool, newId('run')),
	);
	finishRecord(ctx, rec, completedRecord(rec, plan, startMs), plan);
	const answer = ctx.behavior.answerShape === 'mismatched' ? mismatched(rec) : rec;
	if (halfway) return sendHalf(ctx, res, answer, halfway);
	sendJson(res, 200, answer);
}

/**
 * The whole answer's first bytes (half, or `bytes`) with the Content-Length of all of it; then
 * the connection stalls until the client goes away, or drops.
 * @param {import('../types').Context} ctx
 * @param {import('node:http').ServerResponse} res
 * @param {any} answer
 * @param {import('../faults').Fault} fault
 */
async function sendHalf(ctx, res, answer, fault) {
	const body = Buffer.from(JSON.stringify(answer));
	const cut = Number(fault.params.bytes) > 0 ? Number(fault.params.bytes) : body.length >> 1;
	const entry = /** @type {any} */ (res).logEntry;
	if (entry) entry.status = 200;
	res.writeHead(200, {
		'Content-Type': 'application/json; charset=utf-8',
		'Content-Length': String(body.length),
	});
	const out = new StreamOut(ctx, res, false);
	try {
		await out.raw(body.subarray(0, Math.min(cut, body.length - 1)));
		if (fault.type === 'whole-answer-drop') await out.drop();
		else await out.wait(); // until the client goes away or emu.close()
	} catch (err) {
		if (err !== ABORT) throw err;
	}
}

module.exports = { handleRun, sendHalf };
