'use strict';
/**
 * Issue 11 §3, demo 7: n8n's AI Agent with its OpenAI Chat Model (pointed at the fake in
 * fakeOpenAi.js through the credential's Base URL) and BotDojo Run Flow as its tool, driven
 * through the demo's public streaming chat as a user's chat page would.
 */
const assert = require('node:assert/strict');
const { test } = require('node:test');

const { QUESTION } = require('./fakeOpenAi');
const { registerWhere, workflowMissingById } = require('./n8nFeatures');
const { postAndReadLines } = require('./streamLines');

const NAME =
	'demo 7 (AI Agent): the agent runs the flow as a tool with its own input and quotes the answer; the tool streams nothing into the chat';

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
};
