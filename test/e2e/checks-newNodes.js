'use strict';
/**
 * Issue 27 §3 and §4 in the real editor (headless Chromium): one node of each kind as added today
 * shows n8n's words (subtitles in n8n's `<operation>: <what>` form, "Get Many …", "Trigger On",
 * "Metadata"), and an ordinary Run Flow run shows no red "[empty array]" in the output table,
 * while node version 1 (kept for saved workflows) still shows one: the control that the check
 * can see the red field at all. Screenshots go to .e2e-screenshots/.
 */
const assert = require('node:assert/strict');
const path = require('node:path');
const { describe, before, after, test } = require('node:test');

const { ROOT } = require('../../scripts/n8n-local');
const { openBrowser, signIn } = require('../../scripts/lib/browser');

const SHOTS_DIR = path.join(ROOT, '.e2e-screenshots');
const NEW_NODES = 'bdE2eNewNodes';
const ORDINARY_RUN = 'bdE2eOrdinaryRun';
/** What n8n's table shows, in red (`--color--danger`), for an empty list. */
const EMPTY_ARRAY = '[empty array]';

/** Node name → the subtitle the canvas shows under it. */
const SUBTITLES = {
	'BotDojo Run Flow': 'Run: flow_echo',
	'BotDojo Create Session': 'Create: flow_echo',
	'BotDojo Export Requests': 'Get Many by Session: flow_echo',
	'BotDojo Query Index': 'Get Many by Metadata: idx_docs',
	'BotDojo Upload Document': 'Upload',
	'BotDojo Trigger': 'On Error Requests',
};

function canvasNode(page, name) {
	return page.locator(`[data-test-id="canvas-node"][data-node-name="${name}"]`);
}

async function openPanel(page, name) {
	await canvasNode(page, name).dblclick();
	const panel = page.locator('[data-test-id="ndv"]');
	await panel.waitFor({ state: 'visible' });
	await panel.locator('[data-test-id="node-parameters"]').waitFor();
	await page.waitForTimeout(300);
	return panel;
}

async function closePanel(page) {
	await page
		.locator('[data-test-id="ndv-close-button"], [data-test-id="back-to-canvas"]')
		.first()
		.click();
	await page.locator('[data-test-id="ndv"]').waitFor({ state: 'hidden' });
}

/** The output panel of the open node in Table view: its text, and how many cells n8n marks red. */
async function outputTable(page) {
	const output = page.locator('[data-test-id="output-panel"]');
	await output.waitFor({ state: 'visible' });
	await output
		.locator('[data-test-id="ndv-run-data-display-mode"]')
		.getByText('Table', { exact: true })
		.click();
	await output.locator('table').first().waitFor({ state: 'visible' });
	await page.waitForTimeout(500);
	const red = await output.locator('table').evaluate((table) => {
		const danger = getComputedStyle(document.body).getPropertyValue('--color--danger').trim();
		const probe = document.createElement('span');
		probe.style.color = danger;
		document.body.append(probe);
		const dangerColor = getComputedStyle(probe).color;
		probe.remove();
		return [...table.querySelectorAll('*')].filter(
			(element) => element.children.length === 0 && getComputedStyle(element).color === dangerColor,
		).length;
	});
	return { text: await output.innerText(), red };
}

module.exports = function registerNewNodeChecks(env) {
	describe("headless Chromium: n8n's words and no red field (issue 27)", () => {
		let browser;
		let page;

		before(async () => {
			({ browser, page } = await openBrowser());
			await signIn(page, env.n8n.url, env.owner);
		});

		after(async () => {
			await browser?.close();
		});

		test("each kind of node shows a subtitle in n8n's form, in Title Case", async () => {
			await page.goto(`${env.n8n.url}/workflow/${NEW_NODES}`);
			await page.waitForFunction(
				(count) => document.querySelectorAll('[data-test-id="canvas-node"]').length === count,
				Object.keys(SUBTITLES).length,
			);
			await page.waitForTimeout(500);
			await page.screenshot({ path: path.join(SHOTS_DIR, 'issue27-new-nodes-canvas.png') });
			for (const [name, subtitle] of Object.entries(SUBTITLES)) {
				const text = await canvasNode(page, name).innerText();
				assert.ok(text.includes(subtitle), `${name} shows "${subtitle}"; it shows: ${text}`);
			}
		});

		test('the panels say Get Many, Trigger On and Metadata', async () => {
			await page.goto(`${env.n8n.url}/workflow/${NEW_NODES}`);
			await canvasNode(page, 'BotDojo Trigger').waitFor();
			for (const [name, operation] of [
				['BotDojo Export Requests', 'Get Many by Session'],
				['BotDojo Query Index', 'Get Many by Metadata'],
			]) {
				const panel = await openPanel(page, name);
				const shown = await panel
					.locator('[data-test-id="parameter-input-operation"] input')
					.inputValue();
				assert.equal(shown, operation, `${name}: Operation`);
				await closePanel(page);
			}
			const trigger = await openPanel(page, 'BotDojo Trigger');
			const triggerText = await trigger.locator('[data-test-id="node-parameters"]').innerText();
			assert.match(triggerText, /Trigger On/);
			assert.doesNotMatch(triggerText, /Statuses/);
			await page.screenshot({ path: path.join(SHOTS_DIR, 'issue27-trigger-panel.png') });
			await closePanel(page);
			const upload = await openPanel(page, 'BotDojo Upload Document');
			const uploadText = await upload.locator('[data-test-id="node-parameters"]').innerText();
			assert.match(uploadText, /^Metadata$/m);
			assert.doesNotMatch(uploadText, /^Meta$/m);
			await closePanel(page);
		});

		test('an ordinary run of Run Flow shows no red "[empty array]"; node version 1 still does', async () => {
			await page.goto(`${env.n8n.url}/workflow/${ORDINARY_RUN}`);
			await canvasNode(page, 'Run Flow 1.1').waitFor();
			await page.click('[data-test-id="execute-workflow-button"]');
			for (const name of ['Run Flow 1.1', 'Run Flow 1'])
				await canvasNode(page, name)
					.locator('[data-test-id="canvas-node-status-success"]')
					.waitFor({ timeout: 60_000 });

			await openPanel(page, 'Run Flow 1.1');
			const today = await outputTable(page);
			await page.screenshot({ path: path.join(SHOTS_DIR, 'issue27-runflow-output-table.png') });
			await closePanel(page);
			assert.match(today.text, /Echo #\d+: Hi/, 'the answer is in the table');
			assert.ok(!today.text.includes(EMPTY_ARRAY), `no "${EMPTY_ARRAY}": ${today.text}`);
			assert.doesNotMatch(today.text, /intermediateSteps|toolCalls/);
			assert.equal(today.red, 0, 'no cell in red');

			await openPanel(page, 'Run Flow 1');
			const saved = await outputTable(page);
			await page.screenshot({ path: path.join(SHOTS_DIR, 'issue27-runflow-v1-output-table.png') });
			await closePanel(page);
			assert.ok(saved.text.includes(EMPTY_ARRAY), `version 1 shows "${EMPTY_ARRAY}"`);
			assert.ok(saved.red >= 2, `version 1 shows its empty lists in red (${saved.red})`);
		});
	});
};
