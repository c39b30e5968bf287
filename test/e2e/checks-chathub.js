'use strict';
/**
 * n8n 2.x's Chat Hub (Chat → Workflow agents) in headless Chromium: the published chat demo is
 * listed there (n8n lists a workflow with exactly one Chat Trigger ≥ 1.2, "Make Available in n8n
 * Chat Hub" on and a streaming response: modules/chat-hub/chat-hub-workflow.service.js), and a
 * conversation with it streams the flow's tokens into the answer and remembers what was said.
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { describe, before, after, test } = require('node:test');

const { ROOT } = require('../../scripts/n8n-local');
const { chatHubMissing, registerWhere } = require('./n8nFeatures');
const { openBrowser, signIn } = require('../../scripts/lib/browser');

const SHOTS_DIR = path.join(ROOT, '.e2e-screenshots');
const AGENT = 'BotDojo demo chat';
// n8n's minimum Chat Trigger version for Chat Hub (chat-hub.constants.js).
const CHAT_TRIGGER_MIN_VERSION = 1.2;

/** Records, in the page, each text the newest chat message shows, with the time it appeared. */
async function watchNewestMessage(page) {
	await page.evaluate(() => {
		const seen = [];
		window.__newestMessageTexts = seen;
		const messages = () =>
			[...document.querySelectorAll('[data-message-id]')].filter((el) =>
				el.getAttribute('data-test-id')?.startsWith('chat-message-'),
			);
		new MutationObserver(() => {
			const newest = messages().pop();
			const text = newest ? newest.innerText.trim() : '';
			if (seen.length === 0 || seen[seen.length - 1].text !== text)
				seen.push({ at: Date.now(), text });
		}).observe(document.body, { subtree: true, childList: true, characterData: true });
	});
}

/**
 * What a live answer showed beyond the flow's text: '' when it showed the text exactly, or the
 * words n8n's Chat Hub replayed into it. A new conversation's first answer can begin twice in
 * n8n 2.40: when the view turns from "new chat" into the conversation it calls
 * `reconnectToStream(sessionId, 0)` (ChatView's `loadSession`), and the chat store appends every
 * chunk buffered so far, also those the push connection had already shown: a copy of the answer's
 * beginning, inserted where the live text had got to. The saved answer is built by n8n's server
 * from the same chunks and is checked exactly once the chat is reopened. Anything else (a token
 * lost, reordered or doubled later in the stream) fails.
 */
function replayedPrefix(shown, whole) {
	const copy = whole.slice(0, Math.max(0, shown.length - whole.length));
	const at = [...Array(whole.length + 1).keys()].find(
		(a) => shown === whole.slice(0, a) + copy + whole.slice(a),
	);
	assert.ok(
		at !== undefined,
		`the live answer is the flow's text, or it with its beginning replayed once:\n${shown}`,
	);
	return copy;
}

module.exports = function registerChatHubChecks(env) {
	const listed = 'the chat demo is a workflow n8n can list in its Chat Hub';
	const conversation =
		"a Chat Hub conversation streams the flow's tokens and remembers the name given before";
	registerWhere(chatHubMissing(), [listed, conversation], () =>
		describe('n8n Chat Hub', () => {
			let browser;
			let page;

			before(async () => {
				fs.mkdirSync(SHOTS_DIR, { recursive: true });
				({ browser, page } = await openBrowser());
				await signIn(page, env.n8n.url, env.owner);
			});

			after(async () => {
				await browser?.close();
			});

			test(listed, () => {
				env.assertPublished('bdDemoChat');
				const demo = env.examples.find((w) => w.id === 'bdDemoChat');
				const triggers = demo.nodes.filter(
					(n) => n.type === '@n8n/n8n-nodes-langchain.chatTrigger',
				);
				assert.equal(triggers.length, 1, 'exactly one Chat Trigger');
				assert.ok(triggers[0].typeVersion >= CHAT_TRIGGER_MIN_VERSION, 'Chat Trigger 1.2 or later');
				assert.equal(triggers[0].parameters.availableInChat, true, 'available in Chat Hub');
				assert.equal(triggers[0].parameters.options.responseMode, 'streaming');
			});

			test(conversation, { timeout: 240_000 }, async () => {
				// Chat Hub is off until an owner turns it on (Settings › Chat); the owner does so here.
				await env.session.request('PUT', '/rest/chat/enabled', { enabled: true });
				await page.goto(`${env.n8n.url}/home/chat/workflow-agents`);
				await page.locator('[data-test-id="chat-agent-card"]', { hasText: AGENT }).click();
				const input = page.getByPlaceholder(`Message ${AGENT}...`);
				await input.waitFor({ state: 'visible' });
				await watchNewestMessage(page);

				/** Sends one message; returns the texts the answer showed, the flow's run and its record. */
				const say = async (message) => {
					const mark = env.emu.requests.length;
					await page.evaluate(() => window.__newestMessageTexts.splice(0));
					await input.fill(message);
					await input.press('Enter');
					const answer = page.locator('[data-message-id]').last();
					// The flow's run ends in BotDojo; then the answer shows its whole text.
					let run;
					const deadline = Date.now() + 60_000;
					while (!(run = env.requestsSince(mark, 'run')[0])?.respondedAt && Date.now() < deadline)
						await page.waitForTimeout(200);
					assert.ok(run?.respondedAt, `BotDojo ran the flow for "${message}"`);
					// The newest record of this message (the emulator keeps them in the order they began).
					const record = [...env.emu.records.values()]
						.filter((r) => r.body?.text_input === message)
						.pop();
					assert.ok(record, `BotDojo holds the run of "${message}"`);
					const whole = record.response.text_output;
					await answer.getByText(whole.slice(-30)).waitFor({ state: 'visible', timeout: 60_000 });
					const shown = (await answer.innerText()).trim();
					const texts = await page.evaluate(() => window.__newestMessageTexts);
					return {
						message,
						texts,
						run,
						record,
						whole,
						shown,
						replayed: replayedPrefix(shown, whole),
					};
				};

				const first = await say('Hi, my name is Ana');
				assert.match(first.whole, /^Nice to meet you, Ana!/);
				// Streamed: the answer grew in steps, several of them before the flow's stream ended.
				const partial = first.texts.filter(
					(t) => t.text && t.text !== first.shown && first.shown.startsWith(t.text),
				);
				const beforeEnd = partial.filter((t) => t.at < first.run.respondedAt);
				assert.ok(
					beforeEnd.length > 1,
					`${beforeEnd.length} growing answer texts shown before the flow's stream ended (${partial.length} in all)`,
				);

				const second = await say('What is my name?');
				assert.match(second.whole, /^Your name is Ana\. /);
				// An answer in a conversation already open is shown exactly (n8n replays only on the first).
				assert.equal(second.shown, second.whole);
				// Remembered: Run Flow continued the BotDojo session of this Chat Hub conversation.
				assert.equal(second.run.body.options.flow_session_id, first.record.flow_session_id);
				// The whole conversation in view: Chat Hub scrolls the newest question to the top.
				await page.locator('[data-message-id]').first().scrollIntoViewIfNeeded();
				await page.waitForTimeout(500);
				await page.screenshot({ path: path.join(SHOTS_DIR, 'chathub-conversation.png') });
				// Reopened, the conversation shows what n8n saved of the stream: each answer exactly once.
				// n8n saves an answer when its stream has ended; reopened earlier, n8n would replay it.
				const conversation = `/rest/chat/conversations/${new URL(page.url()).pathname.split('/').pop()}`;
				const savedAnswers = async () => {
					const { data } = await env.session.request('GET', conversation);
					return Object.values(data.conversation.messages).filter(
						(m) => m.type === 'ai' && m.status === 'success',
					).length;
				};
				const saveDeadline = Date.now() + 30_000;
				while ((await savedAnswers()) < 2 && Date.now() < saveDeadline)
					await page.waitForTimeout(200);
				assert.equal(await savedAnswers(), 2, 'n8n saved both answers');
				await page.goto(page.url());
				const messages = page.locator('[data-test-id^="chat-message-"][data-message-id]');
				await messages.nth(3).waitFor({ state: 'visible', timeout: 30_000 });
				const saved = (await messages.allInnerTexts()).map((t) => t.trim());
				assert.deepEqual(saved, [first.message, first.whole, second.message, second.whole]);
				env.log(
					`Chat Hub: ${beforeEnd.length}/${partial.length} growing answer texts before the flow's stream ended` +
						(first.replayed ? `; n8n replayed "${first.replayed}" into the live first answer` : ''),
				);
			});
		}),
	);
};
