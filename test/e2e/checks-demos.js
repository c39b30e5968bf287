'use strict';
/**
 * Every demo workflow of examples/ runs in the real n8n (`n8n execute --id`, or its webhook),
 * and its output is checked against what the emulator holds and received.
 */
const assert = require('node:assert/strict');
const { test } = require('node:test');

const local = require('../../scripts/n8n-local');
const { readRepository } = require('../../scripts/lib/repository');
const { registerWhere, workflowMissingById } = require('./n8nFeatures');
const { postAndReadLines } = require('./streamLines');

const EXECUTE_TIMEOUT = { timeout: 180_000 };

function jsonOf(items) {
	return items.map((item) => item.json);
}

module.exports = function registerDemoChecks(env) {
	test(
		'demo 1 (CRM): a session per customer, Run Flow in it, e-mail drafts',
		EXECUTE_TIMEOUT,
		async () => {
			const mark = env.emu.requests.length;
			const { outputs } = await env.execute('bdDemoCrmFollowUp');
			const customers = jsonOf(outputs['One item per customer']);
			const drafts = jsonOf(outputs['E-mail draft']);
			assert.equal(customers.length, 3);
			assert.equal(drafts.length, 3);

			const sessions = env.requestsSince(mark, 'createSession');
			const runs = env.requestsSince(mark, 'run');
			assert.equal(sessions.length, 3);
			assert.equal(runs.length, 3);
			customers.forEach((customer, i) => {
				assert.equal(drafts[i].to, customer.email);
				assert.equal(drafts[i].subject, `Re: ${customer.question}`);
				// A created session runs the flow for the first time: flow_echo answers "Echo #1: …".
				assert.match(drafts[i].body, new RegExp(`^Hello ${customer.name},\\n\\nEcho #1: `));
				assert.ok(drafts[i].body.includes(`Echo #1: ${customer.question}`), drafts[i].body);
				const session = env.emu.sessions.get(drafts[i].botDojoSession);
				assert.ok(session, `session ${drafts[i].botDojoSession} exists in the emulator`);
				assert.deepEqual(session.sessionState, {
					customer: { variables: { profile: { name: customer.name, plan: customer.plan } } },
				});
				const run = runs.find((r) => r.body.body.text_input === customer.question);
				assert.ok(run, `a run was sent for ${customer.name}`);
				assert.equal(run.body.options.flow_session_id, drafts[i].botDojoSession);
				assert.ok(run.path.includes('/flows/flow_echo/run'));
			});
		},
	);

	// Demo 2 (nightly export to a CSV file): checks-export.js.

	test("each node's Docs link in n8n's editor opens the node's own page", async () => {
		const repository = readRepository(local.ROOT);
		const { json: types } = await env.session.request('GET', '/types/nodes.json');
		const ours = types.filter(
			(type) => type.name.startsWith('n8n-nodes-botdojo.') && !type.name.endsWith('Tool'),
		);
		assert.equal(ours.length, local.PACKAGE.n8n.nodes.length);
		for (const type of ours) {
			const folder = type.name
				.slice('n8n-nodes-botdojo.'.length)
				.replace(/^./, (c) => c.toUpperCase());
			const docs = type.codex.resources.primaryDocumentation.map((d) => d.url);
			assert.deepEqual(docs, [
				repository.fileUrl(`nodes/${folder}/README.md`),
				'https://docs.botdojo.com/docs/api',
			]);
			// n8n-editor-ui 2.40.7 (NodeSettingsTabs docsUrl): the first link plus ?utm_…, used as
			// given only when the description has no http documentationUrl of its own.
			assert.equal(type.documentationUrl, undefined, type.name);
			assert.equal(new URL(`${docs[0]}?utm_source=n8n_app`).hash, '');
		}
	});

	test(
		'demo 4 (documents): upload, then a download link and the file through it',
		EXECUTE_TIMEOUT,
		async () => {
			const mark = env.emu.requests.length;
			const { outputs } = await env.execute('bdDemoDocuments');
			const notes = outputs['Meeting notes'][0].json.notes;
			const [uploaded] = jsonOf(outputs['Upload to BotDojo']);
			assert.equal(uploaded.logicalPath, 'n8n-demo/meeting-notes.txt');
			assert.equal(uploaded.fileName, 'meeting-notes.txt');
			assert.deepEqual(uploaded.meta, { source: 'n8n demo', kind: 'meeting notes' });
			const stored = env.emu.documents.get(uploaded.id);
			assert.equal(stored.data.toString('utf8'), notes);

			const [link] = outputs['Get download link'];
			assert.match(link.json.url, /\/signed\//);
			assert.equal(link.json.document.id, uploaded.id);
			assert.ok(Date.parse(link.json.expires) > Date.now());
			assert.equal(link.binary.data.fileName, 'meeting-notes.txt');
			assert.equal(env.readBinary(link.binary.data).toString('utf8'), notes);
			const downloads = env.requestsSince(mark, 'download');
			assert.equal(downloads.length, 1);
			assert.equal(downloads[0].status, 200);
			// The signed link works without the API key.
			assert.equal(downloads[0].headers.authorization, undefined);
		},
	);

	test(
		'demo 5 (index): status, then the chunks whose metadata match',
		EXECUTE_TIMEOUT,
		async () => {
			const mark = env.emu.requests.length;
			const { outputs } = await env.execute('bdDemoIndex');
			const [status] = jsonOf(outputs['Index status']);
			assert.equal(status.id, 'idx_docs');
			assert.equal(status.status, 'ready');
			const chunks = jsonOf(outputs['Handbook chunks']);
			assert.deepEqual(
				chunks.map((c) => c.id),
				['chk_001', 'chk_002', 'chk_003'],
			);
			for (const chunk of chunks) assert.equal(chunk.metadata.source, 'handbook.pdf');
			// The published trigger demo polls `export` every minute, whenever its poll falls.
			assert.deepEqual(
				env
					.requestsSince(mark)
					.map((r) => r.endpoint)
					.filter((endpoint) => endpoint !== 'export'),
				['getStatus', 'queryMetadata'],
			);
			assert.deepEqual(env.requestsSince(mark, 'queryMetadata')[0].body.params, [
				'idx_docs',
				{ source: 'handbook.pdf' },
			]);
		},
	);

	const demo3 =
		'demo 3 (chat): the answer streams word by word to the chat, and the flow remembers the conversation';
	registerWhere(workflowMissingById('bdDemoChat'), demo3, () =>
		test(demo3, EXECUTE_TIMEOUT, async () => {
			env.assertPublished('bdDemoChat');
			const chat = env.examples.find((w) => w.id === 'bdDemoChat');
			const webhookId = chat.nodes.find((n) => n.type.endsWith('.chatTrigger')).webhookId;
			const flowId = chat.nodes.find((n) => n.name === 'BotDojo Run Flow').parameters.flowId.value;
			assert.equal(flowId, 'flow_memory', 'the chat demo uses the flow that shows its memory');
			const url = `${env.n8n.url}/webhook/${webhookId}/chat`;
			const sessionId = `e2e-chat-${Date.now()}`;
			/** One chat message: what the chat window shows, chunk by chunk, and the flow's run. */
			const say = async (chatInput) => {
				const mark = env.emu.requests.length;
				const { lines, status } = await postAndReadLines(url, {
					action: 'sendMessage',
					sessionId,
					chatInput,
				});
				assert.equal(status, 200);
				const ours = lines.filter((l) => l.json?.metadata?.nodeName === 'BotDojo Run Flow');
				assert.deepEqual(
					[ours[0]?.json.type, ours[ours.length - 1]?.json.type],
					['begin', 'end'],
					JSON.stringify(lines.map((l) => l.json ?? l.text)),
				);
				const items = ours.filter((l) => l.json.type === 'item');
				const [run] = env.requestsSince(mark, 'run');
				assert.ok(run?.respondedAt, 'the emulator logged the end of the flow stream');
				return { items, text: items.map((l) => l.json.content).join(''), run };
			};
			/** BotDojo's record of the run of one message (of this chat's session, once it has one). */
			const recordOf = (chatInput, sessionOfChat) => {
				const record = [...env.emu.records.values()].find(
					(r) =>
						r.body?.text_input === chatInput &&
						(!sessionOfChat || r.flow_session_id === sessionOfChat),
				);
				assert.ok(record, `BotDojo holds the run of "${chatInput}"`);
				return record;
			};

			const first = await say('Hello, my name is Ana, from the demo check');
			const firstRecord = recordOf('Hello, my name is Ana, from the demo check');
			assert.match(first.text, /^Nice to meet you, Ana! I will remember your name/);
			// Every word arrived: the chunks join to BotDojo's whole answer.
			assert.equal(first.text, firstRecord.response.text_output);
			// Chunks arrive over time: several reach the chat before BotDojo has sent its final line.
			const beforeFinal = first.items.filter((l) => l.at < first.run.respondedAt).length;
			assert.ok(
				beforeFinal > 1,
				`${beforeFinal} of ${first.items.length} chunks reached the chat before the flow's final line`,
			);
			assert.ok(first.items.length > 10, `the answer came in ${first.items.length} chunk(s)`);

			// The flow remembers: the same BotDojo session holds the name given before.
			const second = await say('What is my name?');
			const secondRecord = recordOf('What is my name?', firstRecord.flow_session_id);
			assert.equal(second.text, secondRecord.response.text_output);
			assert.match(second.text, /^Your name is Ana\. /);
			assert.equal(second.run.body.options.stream, 'http');
			assert.equal(second.run.body.options.flow_session_id, firstRecord.flow_session_id);
			env.log(
				`chat demo: ${beforeFinal}/${first.items.length} chunks before the flow's final line`,
			);
		}),
	);
};
