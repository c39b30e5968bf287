'use strict';
/**
 * Headless Chromium (scripts/lib/browser.js) signs in, opens each demo workflow and the
 * parameter panel of each of our nodes in it, and checks that they render without errors. Screenshots go to .e2e-screenshots/ (git-ignored).
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { describe, before, after, test } = require('node:test');

const { registerWhere, workflowMissing } = require('./n8nFeatures');
const { registerPickerChecks } = require('./nodePicker');
const { ROOT, PACKAGE, EXAMPLES_DIR, readExamples } = require('../../scripts/n8n-local');
const { openBrowser, signIn } = require('../../scripts/lib/browser');

const SHOTS_DIR = path.join(ROOT, '.e2e-screenshots');
// What n8n shows for a node type it does not have loaded.
const NOT_INSTALLED =
	/Install this node|not currently installed|unknown node|node is not installed/i;

function slug(text) {
	return text
		.toLowerCase()
		.replace(/[^a-z0-9]+/g, '-')
		.replace(/^-|-$/g, '');
}

/** Toasts on screen, with whether element-plus marks them as errors. */
async function toasts(page) {
	return await page.$$eval('.el-notification', (elements) =>
		elements.map((el) => ({
			error: !!el.querySelector('.el-notification--error'),
			text: el.innerText.trim(),
		})),
	);
}

async function assertNoErrorShown(page, where) {
	const errors = (await toasts(page)).filter((t) => t.error);
	assert.deepEqual(errors, [], `error toast on ${where}`);
	const text = await page.locator('body').innerText();
	assert.doesNotMatch(text, NOT_INSTALLED, `"not installed" state on ${where}`);
}

/** Closes the open node panel: n8n 2.x's close button, or n8n 1.x's "Back to canvas". */
async function closeNodePanel(page) {
	const panel = page.locator('[data-test-id="ndv"]');
	await page
		.locator('[data-test-id="ndv-close-button"], [data-test-id="back-to-canvas"]')
		.first()
		.click();
	await panel.waitFor({ state: 'hidden' });
}

/** Opens a node's panel, reads the credential it shows, and closes the panel. */
async function credentialShownFor(page, node, expected) {
	await page.dblclick(`[data-test-id="canvas-node"][data-node-name="${node.name}"]`);
	const panel = page.locator('[data-test-id="ndv"]');
	await panel.waitFor({ state: 'visible' });
	const input = panel.locator('[data-test-id="node-credentials-select"] input');
	// Until the editor has matched the credential by name and loaded its list, it shows an id
	// (the file's, or the matched credential's): a busy machine may take a few seconds (bounded;
	// the value is then read once more, and the caller asserts it).
	for (let waited = 0; waited < 15_000 && (await input.inputValue()) !== expected; waited += 250)
		await page.waitForTimeout(250);
	const value = await input.inputValue();
	await closeNodePanel(page);
	return value;
}

/** Our nodes' parameters that the panel shows as plain inputs, from the workflow JSON. */
// `descriptionType` is n8n's own setting of a tool node, drawn by n8n without a parameter input.
const NOT_OURS = new Set(['options', 'descriptionType']);

function plainParameters(node) {
	return Object.entries(node.parameters)
		.filter(([name, value]) => !NOT_OURS.has(name) && value !== null && typeof value !== 'object')
		.map(([name]) => name);
}

module.exports = function registerBrowserChecks(env) {
	describe('headless Chromium', () => {
		let browser;
		let page;
		const pageErrors = [];

		before(async () => {
			fs.rmSync(SHOTS_DIR, { recursive: true, force: true });
			fs.mkdirSync(SHOTS_DIR, { recursive: true });
			({ browser, page } = await openBrowser());
			// With where it happened: the page's address and the first frames of the stack. Errors on
			// the sign-in page come before n8n loads any node type (n8n 1.123.81's own editor throws
			// one there, in versions.store), so they are logged, not counted.
			page.on('pageerror', (error) => {
				const where = `${page.url()}: ${String(error.stack).split('\n').slice(1, 4).join(' | ')}`;
				if (new URL(page.url()).pathname === '/signin')
					env.log(`n8n's sign-in page threw: ${error.message} (${where})`);
				else pageErrors.push(`${error.message} (on ${where})`);
			});
		});

		after(async () => {
			await browser?.close();
		});

		test('signs in as the owner', async () => {
			await signIn(page, env.n8n.url, env.owner);
			await page.screenshot({ path: path.join(SHOTS_DIR, '00-signed-in.png') });
			await assertNoErrorShown(page, 'the start page');
		});

		registerPickerChecks(env, () => page, SHOTS_DIR);

		// Read now: tests are registered before setup() runs.
		for (const workflow of readExamples()) {
			const nodes = workflow.nodes.filter((n) => n.type !== 'n8n-nodes-base.stickyNote');
			const ours = nodes.filter((n) => n.type.startsWith(`${PACKAGE.name}.`));
			const shot = slug(workflow.file.replace(/\.json$/, ''));

			// A demo whose n8n nodes the installed n8n lacks (an older n8n) cannot open there.
			const opens = `opens ${workflow.file} and the parameter panel of each BotDojo node`;
			registerWhere(workflowMissing(workflow), opens, () =>
				test(opens, { timeout: 180_000 }, async () => {
					await page.goto(`${env.n8n.url}/workflow/${workflow.id}`);
					await page.waitForSelector('[data-test-id="canvas-node"]');
					await page.waitForFunction(
						(count) => document.querySelectorAll('[data-test-id="canvas-node"]').length === count,
						nodes.length,
					);
					await page.waitForTimeout(500);
					for (const node of nodes) {
						const onCanvas = page.locator(
							`[data-test-id="canvas-node"][data-node-name="${node.name}"]`,
						);
						assert.equal(await onCanvas.count(), 1, `${node.name} is on the canvas`);
						assert.equal(await onCanvas.getAttribute('data-node-type'), node.type);
					}
					for (const node of ours) {
						const issues = page.locator(
							`[data-test-id="canvas-node"][data-node-name="${node.name}"] [data-test-id="node-issues"]`,
						);
						assert.equal(await issues.count(), 0, `${node.name} shows no issues on the canvas`);
					}
					await page.screenshot({ path: path.join(SHOTS_DIR, `${shot}.png`) });
					await assertNoErrorShown(page, workflow.file);

					for (const node of ours) {
						await page.dblclick(`[data-test-id="canvas-node"][data-node-name="${node.name}"]`);
						const panel = page.locator('[data-test-id="ndv"]');
						await panel.waitFor({ state: 'visible' });
						await panel.locator('[data-test-id="node-parameters"]').waitFor();
						for (const name of plainParameters(node)) {
							const input = panel.locator(`[data-test-id="parameter-input-${name}"]`);
							assert.ok((await input.count()) > 0, `${node.name}: parameter ${name} is shown`);
						}
						const credential = panel.locator('[data-test-id="node-credentials-select"] input');
						assert.equal(
							await credential.inputValue(),
							'BotDojo account',
							`${node.name} credential`,
						);
						await page.waitForTimeout(300);
						await page.screenshot({
							path: path.join(SHOTS_DIR, `${shot}--${slug(node.name)}.png`),
						});
						await assertNoErrorShown(page, `the panel of ${node.name} in ${workflow.file}`);
						await closeNodePanel(page);
					}
				}),
			);
		}

		// As a user would: Import from File into a new workflow, credentials matched by name.
		for (const workflow of readExamples()) {
			const imports = `imports ${workflow.file} from file into a new workflow`;
			registerWhere(workflowMissing(workflow), imports, () =>
				test(imports, { timeout: 120_000 }, async () => {
					const nodes = workflow.nodes.filter((n) => n.type !== 'n8n-nodes-base.stickyNote');
					const ours = nodes.filter((n) => n.type.startsWith(`${PACKAGE.name}.`));
					await page.goto(`${env.n8n.url}/workflow/new`);
					await page.waitForSelector('[data-test-id="canvas-wrapper"]');
					await page.setInputFiles(
						'input[data-test-id="workflow-import-input"]',
						path.join(EXAMPLES_DIR, workflow.file),
					);
					await page.waitForFunction(
						(count) => document.querySelectorAll('[data-test-id="canvas-node"]').length === count,
						nodes.length,
					);
					await page.waitForTimeout(500);
					for (const node of ours)
						assert.equal(
							await credentialShownFor(page, node, 'BotDojo account'),
							'BotDojo account',
							`${node.name}: the credential was matched by name`,
						);
					await assertNoErrorShown(page, `the import of ${workflow.file}`);
					await page.screenshot({
						path: path.join(SHOTS_DIR, `import-${slug(workflow.file.replace(/\.json$/, ''))}.png`),
					});
				}),
			);
		}

		// The control that makes the check above meaningful: n8n drops a credential it cannot match.
		test('an import whose credential name matches no credential leaves the credential empty', async () => {
			const workflow = readExamples().find((w) => w.id === 'bdDemoIndex');
			const { file: _file, ...copy } = JSON.parse(JSON.stringify(workflow));
			for (const node of copy.nodes)
				if (node.credentials?.botDojoApi) node.credentials.botDojoApi.name = 'No such credential';
			await page.goto(`${env.n8n.url}/workflow/new`);
			await page.waitForSelector('[data-test-id="canvas-wrapper"]');
			await page.setInputFiles('input[data-test-id="workflow-import-input"]', {
				name: 'unknown-credential.json',
				mimeType: 'application/json',
				buffer: Buffer.from(JSON.stringify(copy)),
			});
			await page.waitForSelector('[data-test-id="canvas-node"][data-node-name="Index status"]');
			const node = copy.nodes.find((n) => n.name === 'Index status');
			assert.equal(await credentialShownFor(page, node, ''), '');
		});

		const editorChat = "demo 3 in the editor's chat: the flow's answer appears in the chat";
		const chatDemo = readExamples().find((w) => w.id === 'bdDemoChat');
		registerWhere(workflowMissing(chatDemo), editorChat, () =>
			test(editorChat, { timeout: 120_000 }, async () => {
				await page.goto(`${env.n8n.url}/workflow/bdDemoChat`);
				await page.waitForSelector('[data-test-id="canvas-node"]');
				await page.click('[data-test-id="workflow-chat-button"]');
				const input = page.locator('[data-test-id="logs-panel"] textarea').first();
				await input.waitFor({ state: 'visible' });
				await input.fill('Hello from the browser');
				await input.press('Enter');
				// flow_memory's answer grows word by word; its last words mean the whole answer is shown.
				const chatPanel = page.locator('[data-test-id="logs-panel"]');
				await chatPanel
					.getByText('You said: Hello from the browser.')
					.first()
					.waitFor({ state: 'visible', timeout: 60_000 });
				await chatPanel
					.getByText('to see what I remember.')
					.first()
					.waitFor({ state: 'visible', timeout: 60_000 });
				await page.waitForTimeout(500);
				await page.screenshot({ path: path.join(SHOTS_DIR, '3-chat--editor-chat.png') });
				await assertNoErrorShown(page, "the editor's chat");
			}),
		);

		test('no uncaught error in the page', () => {
			assert.deepEqual(pageErrors, []);
		});
	});
};
