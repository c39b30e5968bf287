'use strict';
/**
 * What the queue suite reads to judge a run: the emulator's request log and flow request records
 * (which session a message asked for and ran in), n8n's Executions list, and the workers' logs
 * (which worker started an execution).
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');

/** The readers over `env` (its `emu` and `stack` are set by the suite's `before`). */
module.exports = function queueReads(env) {
	/** The session each run request asked for, by the message it sent (undefined: none). */
	function sessionAskedFor(text) {
		const runs = env.emu.requests.filter(
			(r) => r.endpoint === 'run' && r.body?.body?.text_input === text,
		);
		assert.equal(runs.length, 1, `one run of "${text}"`);
		return runs[0].body.options?.flow_session_id;
	}

	/** The session the run of a message ran in (from the emulator's flow request records). */
	function sessionRanIn(text) {
		const record = [...env.emu.records.values()].find((r) => r.body?.text_input === text);
		assert.ok(record, `a flow request for "${text}"`);
		return record.flow_session_id;
	}

	/** The public chat's address of a workflow of the stack (its Chat Trigger's webhook, served by
	 *  the webhook process). */
	function publicChatUrl(workflowId) {
		const workflow = env.stack.workflows.find((w) => w.id === workflowId);
		const webhookId = workflow.nodes.find((n) => n.type.endsWith('.chatTrigger')).webhookId;
		return `${env.stack.n8n.webhookUrl}/webhook/${webhookId}/chat`;
	}

	/** Executions of a workflow as n8n's Executions list shows them (newest first). */
	async function executionsOf(workflowId) {
		const filter = encodeURIComponent(JSON.stringify({ workflowId }));
		const { data } = await env.stack.session.request(
			'GET',
			`/rest/executions?filter=${filter}&limit=250`,
		);
		return data.results;
	}

	/** Whether a worker's log says it started `executionId` ("Worker started execution N (job M)"). */
	function startedBy(worker, executionId) {
		const started = new RegExp(`Worker started execution ${executionId} \\(`);
		return started.test(fs.readFileSync(worker.logFile, 'utf8'));
	}

	/** How many of `executionIds` each worker's log says it started. */
	function workersThatRan(executionIds) {
		return env.stack.n8n.workers.map((w) => executionIds.filter((id) => startedBy(w, id)).length);
	}

	/** The worker whose log says it started `executionId`. */
	function workerRunning(executionId) {
		const found = env.stack.n8n.workers.filter((w) => startedBy(w, executionId));
		assert.equal(found.length, 1, `one worker log names execution ${executionId}`);
		return found[0];
	}

	return {
		sessionAskedFor,
		sessionRanIn,
		publicChatUrl,
		executionsOf,
		workersThatRan,
		workerRunning,
	};
};
