'use strict';
/**
 * Issue 11 §3, demo 7: n8n's AI Agent with its OpenAI Chat Model (pointed at the fake in
 * fakeOpenAi.js through the credential's Base URL) and BotDojo Run Flow as its tool, driven
 * through the demo's public streaming chat as a user's chat page would.
 * Issue 36: the same tool behind n8n's human review for tool calls (a Send Email approval, the
 * mail caught by fakeSmtp.js), approved and rejected through the mail's links.
 */
const assert = require('node:assert/strict');
const path = require('node:path');
const { test } = require('node:test');

const { INSTALL_DIR } = require('../../scripts/n8n-local');

const { QUESTION } = require('./fakeOpenAi');
const { registerWhere, workflowMissingById } = require('./n8nFeatures');
const { postAndReadLines } = require('./streamLines');

const NAME =
	'demo 7 (AI Agent): the agent runs the flow as a tool with its own input and quotes the answer; the tool streams nothing into the chat';

const REVIEWED = 'bdE2eHumanReview';
const APPROVED =
	'human review for tool calls: approved by mail, the flow runs once and the agent gets its answer';
const REJECTED = 'human review for tool calls: rejected by mail, nothing is sent to BotDojo';
// A person's browser: n8n answers bots (link previews) without recording a decision.
const BROWSER =
	'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36';

/** n8n's REST API returns execution data in the "flatted" format; n8n ships the parser. */
function parseFlatted(text) {
	return require(path.join(INSTALL_DIR, 'node_modules', 'flatted')).parse(text);
}

/** Polls `read` once a second until `done` holds for its result, for at most `ms`. */
async function pollUntil(read, done, ms, what) {
	const deadline = Date.now() + ms;
	for (;;) {
		const result = await read();
		if (done(result)) return result;
		assert.ok(Date.now() < deadline, `${what} within ${ms / 1000} s`);
		await new Promise((resolve) => setTimeout(resolve, 1000));
	}
}

/** An execution's status, runData and the AI Agent's answer, through n8n's REST API. */
async function readExecution(env, id) {
	const { data } = await env.session.request('GET', `/rest/executions/${id}`);
	const runData = data.data ? parseFlatted(data.data).resultData.runData : {};
	const output = runData['AI Agent']?.at(-1)?.data?.main?.[0]?.[0]?.json?.output;
	return { status: data.status, output, runData };
}

/**
 * Asks the reviewed agent a question through its webhook and waits for the review mail, and for
 * its execution to wait for a person (n8n sends the mail first; a click before is refused with
 * 409). Returns the mail, its Approve and Decline links, and the execution's id.
 */
async function askForReview(env) {
	const mailsBefore = env.smtp.mails.length;
	// n8n may still be registering the published workflow's webhook when the suite starts here.
	const response = await pollUntil(
		() =>
			fetch(`${env.n8n.url}/webhook/botdojo-e2e-review`, {
				method: 'POST',
				headers: { 'content-type': 'application/json' },
				body: JSON.stringify({ question: 'Can I get my money back for order 42?' }),
			}),
		(answer) => answer.status !== 404,
		60_000,
		'the webhook is registered',
	);
	assert.equal(response.status, 200, await response.text());
	const mail = await env.smtp.mailAfter(mailsBefore, 90_000);
	const linkTo = (approved) => mail.links.find((link) => link.includes(`approved=${approved}`));
	const executionId = /\/webhook-waiting\/([^/]+)\//.exec(linkTo(true) ?? '')?.[1];
	assert.ok(executionId, `the mail links to a waiting execution: ${mail.links}`);
	await pollUntil(
		() => readExecution(env, executionId),
		({ status }) => status === 'waiting',
		60_000,
		`execution ${executionId} waits for the review`,
	);
	return { mail, approve: linkTo(true), decline: linkTo(false), executionId };
}

/** Clicks a link of the mail as a person would, then waits for the execution to finish. */
async function decide(env, link, executionId) {
	const response = await fetch(link, { headers: { 'user-agent': BROWSER } });
	assert.equal(response.status, 200, await response.text());
	return await pollUntil(
		() => readExecution(env, executionId),
		({ status }) => !['new', 'running', 'waiting'].includes(status),
		90_000,
		`execution ${executionId} finishes`,
	);
}

/** The tool result the model received in its second call (the agent's view of the tool). */
function toolResultSeen(env, modelMark) {
	const calls = env.openAi.requests
		.slice(modelMark)
		.filter((r) => r.url.endsWith('/chat/completions'));
	assert.equal(calls.length, 2, 'two model calls: the tool call, then the answer');
	const toolMessage = calls[1].body.messages.find((m) => m.role === 'tool');
	return JSON.stringify(toolMessage?.content ?? null);
}

function registerHumanReviewChecks(env) {
	registerWhere(workflowMissingById(REVIEWED), [APPROVED, REJECTED], () => {
		test(APPROVED, { timeout: 240_000 }, async () => {
			env.assertPublished(REVIEWED);
			const mark = env.emu.requests.length;
			const modelMark = env.openAi.requests.length;
			const review = await askForReview(env);
			// The reviewer sees what the flow would be asked; nothing has reached BotDojo yet.
			assert.ok(review.mail.html.includes(QUESTION), review.mail.html);
			assert.equal(env.requestsSince(mark, 'run').length, 0, 'no run before the approval');

			const { status, output } = await decide(env, review.approve, review.executionId);
			assert.equal(status, 'success');
			const runs = env.requestsSince(mark, 'run');
			assert.equal(runs.length, 1, 'one flow run after the approval');
			assert.equal(runs[0].body.body?.text_input, QUESTION, JSON.stringify(runs[0].body));
			// The agent got the flow's answer, not the approval itself (n8n issue 34645).
			const flowAnswer = `Echo #1: ${QUESTION}`;
			const seen = toolResultSeen(env, modelMark);
			assert.ok(seen.includes(flowAnswer), `the tool result is the flow's answer: ${seen}`);
			assert.doesNotMatch(seen, /approved/);
			assert.ok(String(output).includes(flowAnswer), `the agent's answer quotes it: ${output}`);
		});

		test(REJECTED, { timeout: 240_000 }, async () => {
			env.assertPublished(REVIEWED);
			const mark = env.emu.requests.length;
			const modelMark = env.openAi.requests.length;
			const review = await askForReview(env);

			const { status, output } = await decide(env, review.decline, review.executionId);
			assert.equal(status, 'success');
			// Nothing but demo 6's Trigger polls (export), which run on their own every minute.
			const sent = env.requestsSince(mark).filter((r) => r.endpoint !== 'export');
			assert.deepEqual(sent, [], 'nothing was sent to BotDojo');
			const seen = toolResultSeen(env, modelMark);
			assert.match(seen, /rejected the tool call/, `the agent was told: ${seen}`);
			assert.match(String(output), /rejected the tool call/);
		});
	});
}

module.exports = function registerAgentChecks(env) {
	registerWhere(workflowMissingById('bdDemoAgent'), NAME, () =>
		test(NAME, { timeout: 180_000 }, async () => {
			env.assertPublished('bdDemoAgent');
			const demo = env.examples.find((w) => w.id === 'bdDemoAgent');
			const webhookId = demo.nodes.find((n) => n.type.endsWith('.chatTrigger')).webhookId;
			const mark = env.emu.requests.length;
			const modelMark = env.openAi.requests.length;
			const { status, lines } = await postAndReadLines(`${env.n8n.url}/webhook/${webhookId}/chat`, {
				action: 'sendMessage',
				sessionId: `e2e-agent-${Date.now()}`,
				chatInput: 'Can I get my money back for order 42?',
			});
			assert.equal(status, 200);
			const shown = JSON.stringify(lines.map((l) => l.json ?? l.text));

			// BotDojo received one run, with the input the model chose for the tool.
			const runs = env.requestsSince(mark, 'run');
			assert.equal(runs.length, 1, `one flow run (${shown})`);
			assert.equal(runs[0].body.body?.text_input, QUESTION, JSON.stringify(runs[0].body));
			const flowAnswer = `Echo #1: ${QUESTION}`;

			// The model was asked twice: the second time with the tool's result.
			const calls = env.openAi.requests
				.slice(modelMark)
				.filter((r) => r.url.endsWith('/chat/completions'));
			assert.equal(calls.length, 2, 'two model calls: tool call, then the answer');
			const toolMessage = calls[1].body.messages.find((m) => m.role === 'tool');
			assert.match(
				JSON.stringify(toolMessage?.content),
				new RegExp(flowAnswer.replace(/[?]/g, '\\?')),
			);

			// The chat got the agent's answer, quoting the flow, and nothing from the tool itself.
			const items = lines.filter((l) => l.json?.type === 'item');
			const fromAgent = items.filter((l) => l.json.metadata?.nodeName === 'AI Agent');
			const answer = fromAgent.map((l) => l.json.content).join('');
			assert.ok(answer.includes(flowAnswer), `the agent's answer quotes the flow: ${answer}`);
			const fromOthers = lines.filter(
				(l) => l.json?.metadata?.nodeName && l.json.metadata.nodeName !== 'AI Agent',
			);
			assert.deepEqual(fromOthers, [], `only the agent writes to the chat: ${shown}`);
			assert.equal(
				items.map((l) => l.json.content).join(''),
				answer,
				"the chat's text is exactly the agent's answer",
			);
		}),
	);
	registerHumanReviewChecks(env);
};
