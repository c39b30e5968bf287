'use strict';
/** Complete flow request records built from partial ones, and seeded histories. */
const { newId, iso } = require('./util');

/**
 * Build a complete record from a partial one (defaults for every field of the record table).
 * @param {import('./types').Context} ctx
 * @param {Record<string, any>} p
 * @param {string} [answerText]
 */
function makeRecord(ctx, p = {}, answerText) {
	const now = Date.now();
	const modified = p.modified || iso(now);
	const endMs = Date.parse(modified);
	const duration = typeof p.duration === 'number' ? p.duration : 250;
	const startTime = p.startTime || iso(endMs - duration);
	const id = p.id || newId('req');
	const body = p.body || { text_input: 'Hello' };
	const text = typeof body.text_input === 'string' ? body.text_input : JSON.stringify(body);
	const status = p.status || 'complete';
	const answer = answerText !== undefined ? answerText : `Answer to: ${text}`;
	const flowId = p.flow_id || 'flow_echo';
	const version = p.version || '1';
	const running = status === 'running';
	const rec = {
		tags: [],
		id,
		flow_id: flowId,
		flow_session_id: newId('ses'),
		body,
		requestParams: { stream: 'none' },
		runOptions: {},
		override: {},
		status,
		top_request_id: id,
		userMessage: { id: newId('msg'), date: startTime, role: 'user', content: text },
		flow_history_id: `fh_${flowId}_${version}`,
		version,
		response: running
			? {}
			: status === 'error'
				? { error: 'The model provider returned an error' }
				: { text_output: answer },
		aiMessage: {
			id: newId('msg'),
			date: modified,
			role: 'assistant',
			steps: [],
			content: status === 'complete' ? answer : '',
		},
		eval_job_id: null,
		startTime,
		endTime: running ? null : modified,
		duration: running ? null : duration,
		created: startTime,
		modified,
		owner_uid: ctx.ownerUid,
		modified_uid: ctx.ownerUid,
		account_id: ctx.accountId,
		project_id: ctx.projectId,
	};
	for (const [k, v] of Object.entries(p)) if (v !== undefined) /** @type {any} */ (rec)[k] = v;
	return rec;
}

/**
 * Records of a seeded history: one per `stepMs`, every `errorEvery`-th an error and every
 * `runningEvery`-th still running.
 * @param {import('./types').Context} ctx
 * @param {string} flowId
 * @param {number} count
 * @param {{ start?: number, stepMs?: number, errorEvery?: number, runningEvery?: number, sessionId?: string }} [opts]
 */
function seededRecords(ctx, flowId, count, opts = {}) {
	const start = opts.start === undefined ? Date.now() : Number(opts.start);
	const stepMs = opts.stepMs === undefined ? 1000 : Number(opts.stepMs);
	const errorEvery = opts.errorEvery || 0;
	const runningEvery = opts.runningEvery || 0;
	const recs = [];
	for (let i = 0; i < count; i++) {
		const n = i + 1;
		const status =
			runningEvery && n % runningEvery === 0
				? 'running'
				: errorEvery && n % errorEvery === 0
					? 'error'
					: 'complete';
		const modified = iso(start + i * stepMs);
		recs.push(
			makeRecord(
				ctx,
				{
					flow_id: flowId,
					flow_session_id: opts.sessionId || newId('ses'),
					body: { text_input: `Seeded question ${n}` },
					status,
					modified,
				},
				`Seeded answer ${n}`,
			),
		);
	}
	return recs;
}

module.exports = { makeRecord, seededRecords };
