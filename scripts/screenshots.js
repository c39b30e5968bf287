'use strict';
/**
 * `node scripts/screenshots.js [--tarball <packed .tgz>] [--prefix before-] [--only picker|runflow|export|newnodes]`
 * takes the screenshots in docs/screenshots/: the default n8n (the cached install) with this
 * checkout's package, or with a packed one (e.g. built at an older commit), in a throw-away user
 * folder, against the emulator, in headless Chromium:
 *   <prefix>picker-trigger-botdojo.png  "What triggers this workflow?" searched for "BotDojo"
 *   <prefix>picker-next-botdojo.png     "What happens next?" searched for "BotDojo"
 *   <prefix>export-item-{table,json}.png  one Export Requests item in the output panel
 *   <prefix>runflow-new-node.png          a Run Flow node just added from the picker, its panel
 *   <prefix>runflow-options.png           the same panel with its Add Option list open
 *   <prefix>runflow-options-added.png     with the retry, stream-line and message options added
 *   <prefix>new-<node>.png                each kind of node just added from the picker, its panel
 * Ports are free ones on 127.0.0.1; n8n and the emulator are stopped at the end.
 */
const fs = require('node:fs');
const path = require('node:path');
const { parseArgs } = require('node:util');

const local = require('./n8n-local');
const { openBrowser, signIn } = require('./lib/browser');
const { startEmulator } = require('../emulator');
const { searchPicker, oursAmong } = require('../test/e2e/nodePicker');

const OUT_DIR = path.join(local.ROOT, 'docs', 'screenshots');
const EXPORT_NODE = 'BotDojo Export Requests';

/** Manual Trigger → Export Requests of flow_echo, one record, as a node added today (Simplify on). */
function exportWorkflow() {
	return {
		id: 'bdShotExport',
		name: 'Export one request',
		nodes: [
			{
				parameters: {},
				id: '0b8c6a4e-3f57-4d55-9a39-5c1f4a7d2e01',
				name: 'When clicking ‘Execute workflow’',
				type: 'n8n-nodes-base.manualTrigger',
				typeVersion: 1,
				position: [0, 0],
			},
			{
				parameters: { operation: 'export', flowId: 'flow_echo', limit: 1 },
				id: '0b8c6a4e-3f57-4d55-9a39-5c1f4a7d2e02',
				name: EXPORT_NODE,
				type: 'n8n-nodes-botdojo.botDojoExportRequests',
				typeVersion: 1.1,
				position: [260, 0],
				credentials: { botDojoApi: { id: local.CREDENTIAL_ID, name: local.CREDENTIAL_NAME } },
			},
		],
		connections: {
			'When clicking ‘Execute workflow’': {
				main: [[{ node: EXPORT_NODE, type: 'main', index: 0 }]],
			},
		},
		settings: { executionOrder: 'v1' },
		active: false,
	};
}

async function shootPickers(page, n8nUrl, workflowId, prefix) {
	await page.goto(`${n8nUrl}/workflow/new`);
	await page.waitForSelector('[data-test-id="canvas-wrapper"]');
	await page.click('[data-test-id="canvas-add-button"]');
	console.log(`trigger picker lists: ${oursAmong(await searchPicker(page, 'BotDojo')).join(', ')}`);
	await page.screenshot({ path: path.join(OUT_DIR, `${prefix}picker-trigger-botdojo.png`) });
	await page.keyboard.press('Escape');

	await page.goto(`${n8nUrl}/workflow/${workflowId}`);
	await page.waitForSelector('[data-test-id="canvas-node"]');
	await page.click('[data-test-id="node-creator-plus-button"]');
	console.log(
		`"What happens next?" lists: ${oursAmong(await searchPicker(page, 'BotDojo')).join(', ')}`,
	);
	await page.screenshot({ path: path.join(OUT_DIR, `${prefix}picker-next-botdojo.png`) });
	await page.keyboard.press('Escape');
}

async function shootExportItem(page, n8nUrl, workflowId, prefix) {
	await page.goto(`${n8nUrl}/workflow/${workflowId}`);
	await page.waitForSelector('[data-test-id="canvas-node"]');
	await page.click('[data-test-id="execute-workflow-button"]');
	const node = page.locator(`[data-test-id="canvas-node"][data-node-name="${EXPORT_NODE}"]`);
	await node.locator('[data-test-id="canvas-node-status-success"]').waitFor();
	await node.dblclick();
	await page.locator('[data-test-id="ndv"]').waitFor({ state: 'visible' });
	const output = page.locator('[data-test-id="output-panel"]');
	await output.waitFor({ state: 'visible' });
	const modes = output.locator('[data-test-id="ndv-run-data-display-mode"]');
	for (const mode of ['Table', 'JSON']) {
		await modes.getByText(mode, { exact: true }).click();
		await page.waitForTimeout(800);
		await page.screenshot({
			path: path.join(OUT_DIR, `${prefix}export-item-${mode.toLowerCase()}.png`),
		});
	}
}

/** Adds Run Flow from the picker, as a user does, and shoots its panel and its option list. */
async function shootNewRunFlow(page, n8nUrl, workflowId, prefix) {
	await page.goto(`${n8nUrl}/workflow/${workflowId}`);
	await page.waitForSelector('[data-test-id="canvas-node"]');
	await page.click('[data-test-id="node-creator-plus-button"]');
	await searchPicker(page, 'BotDojo Run Flow');
	await page
		.locator('[data-test-id="node-creator-item-name"]', { hasText: /^BotDojo Run Flow$/ })
		.first()
		.click();
	// n8n 2.x first shows a community node's details, with "Add to workflow".
	await page.getByText('Add to workflow', { exact: true }).click();
	const panel = page.locator('[data-test-id="ndv"]');
	await panel.waitFor({ state: 'visible' });
	await page.waitForTimeout(1000);
	await page.screenshot({ path: path.join(OUT_DIR, `${prefix}runflow-new-node.png`) });
	const addOption = panel.locator('[data-test-id="collection-parameter-add"]');
	await addOption.click();
	await page.waitForTimeout(800);
	await page.screenshot({ path: path.join(OUT_DIR, `${prefix}runflow-options.png`) });
	await page.keyboard.press('Escape');
	// The retry and limit options, whose names were the longest (before: "Advanced: …").
	for (const name of [/Attempts When Busy/, /Wait/, /Stream Line/, /Message Property$/, /Idle/]) {
		await addOption.click();
		await page.locator('[data-test-id="collection-parameter-option"]', { hasText: name }).click();
		await page.waitForTimeout(300);
	}
	await page.waitForTimeout(500);
	await page.screenshot({ path: path.join(OUT_DIR, `${prefix}runflow-options-added.png`) });
	console.log(
		`Run Flow panel shows: ${(await panel.innerText()).split('\n').slice(0, 80).join(' | ')}`,
	);
}

/** True when `locator` becomes visible within `ms`. */
const visibleWithin = (locator, ms) =>
	locator.waitFor({ state: 'visible', timeout: ms }).then(
		() => true,
		() => false,
	);

/**
 * Chooses the action named `actionText` (the node's default operation, or the Trigger's default
 * event) in the node's action list. The search list behind it also holds action items (the
 * Trigger's events), so the row is found by its own text, not as the first action item. The list slides
 * in and a click during the slide is lost: Playwright's click waits until the item stops moving
 * (no `force`), and if no panel opens, Enter on the hovered item adds it.
 */
async function chooseAction(page, actionText, panel) {
	// n8n 2.40's details view lists them as plain rows under "Actions (n)", so by text.
	const item = page.getByText(actionText, { exact: true }).last();
	await item.waitFor({ state: 'visible' });
	await page.waitForTimeout(800);
	await item.click();
	if (await visibleWithin(panel, 3000)) return console.log(`"${actionText}": added by a click`);
	await item.hover();
	await page.keyboard.press('Enter');
	console.log(`"${actionText}": the click was lost, Enter pressed`);
}

/**
 * Picks `name` in the open picker and waits for its panel (n8n 2.x may first show its details,
 * then, for a node with several operations, its action list, where `actionText` is chosen).
 * n8n may list a trigger without its " Trigger" ending ("BotDojo").
 */
async function pickNode(page, name, actionText) {
	const listed = await searchPicker(page, 'BotDojo');
	if (!listed.includes(name)) name = name.replace(/ Trigger$/, '');
	if (!listed.includes(name)) throw new Error(`the picker lists ${listed.join(', ')}, not ${name}`);
	const items = page.locator('[data-test-id="node-creator-item-name"]');
	const texts = await items.allInnerTexts();
	await items.nth(texts.findIndex((text) => text.trim() === name)).click();
	const add = page.getByText('Add to workflow', { exact: true });
	const panel = page.locator('[data-test-id="ndv"]');
	if (!(await visibleWithin(add.or(panel).first(), 5000)) && !actionText)
		throw new Error(`${name}: neither its details nor its panel opened`);
	if (await add.isVisible()) await add.click();
	if (actionText && !(await visibleWithin(panel, 1500)))
		await chooseAction(page, actionText, panel);
	await panel.waitFor({ state: 'visible' });
	await page.waitForTimeout(1000);
	return panel;
}

/** Each kind of node as a user adds it today (issue 27 §4): its panel; logs the subtitles. */
async function shootNewNodes(page, n8nUrl, workflowId, prefix) {
	const shot = (name) => path.join(OUT_DIR, `${prefix}${name}.png`);
	const slug = (name) =>
		name
			.replace(/^BotDojo /, '')
			.toLowerCase()
			.replace(/\W+/g, '-');
	await page.goto(`${n8nUrl}/workflow/${workflowId}`);
	await page.waitForSelector('[data-test-id="canvas-node"]');
	// Each node with the action n8n lists first for it: its default operation / event.
	for (const [name, actionText] of [
		['BotDojo Run Flow'],
		['BotDojo Create Session'],
		['BotDojo Export Requests', 'Export flow requests'],
		['BotDojo Query Index', 'Get index status'],
		['BotDojo Upload Document', 'Upload document'],
		['BotDojo Trigger', 'On complete or error'],
	]) {
		await page.locator('[data-test-id="canvas-node"]').last().click();
		await page.click('[data-test-id="node-creator-plus-button"]');
		await pickNode(page, name, actionText);
		await page.screenshot({ path: shot(`new-${slug(name)}`) });
		await page.keyboard.press('Escape');
		await page.locator('[data-test-id="ndv"]').waitFor({ state: 'hidden' });
	}
	// No canvas shot: the added nodes land on top of each other (canvas-subtitles.png shows them).
	const subtitles = await page.locator('[data-test-id="canvas-node"]').allInnerTexts();
	console.log(`canvas nodes: ${subtitles.map((t) => t.replace(/\s+/g, ' ')).join(' | ')}`);
}

async function main() {
	const { values } = parseArgs({
		options: {
			tarball: { type: 'string' },
			prefix: { type: 'string', default: '' },
			only: { type: 'string' },
		},
	});
	fs.mkdirSync(OUT_DIR, { recursive: true });
	const stops = [];
	try {
		const emu = await startEmulator({ port: 0, seedDemo: true });
		stops.push(() => emu.close());
		await local.ensureN8nInstalled();
		const packed = values.tarball
			? { tarball: path.resolve(values.tarball), cleanup: () => undefined }
			: local.buildAndPack();
		const userFolder = fs.mkdtempSync(path.join(local.LOCAL_DIR, 'shots-'));
		stops.push(() => local.removeUserFolder(userFolder));
		local.installPackageInto(userFolder, packed);
		packed.cleanup();

		const ports = { port: await local.freePort(), brokerPort: await local.freePort() };
		const workflow = exportWorkflow();
		await local.importIntoN8n({
			userFolder,
			ports,
			credentials: [
				local.botDojoCredential({
					baseUrl: emu.baseUrl,
					accountId: emu.accountId,
					projectId: emu.projectId,
					apiKey: emu.keys.project,
				}),
			],
			workflows: [workflow],
		});
		const n8n = await local.startN8n({
			userFolder,
			...ports,
			logFile: path.join(userFolder, 'n8n.log'),
			onSpawn: (stop) => stops.push(stop),
		});
		console.log(`n8n ${local.N8N_VERSION} on ${n8n.url}`);
		const owner = { email: 'shots@example.com', firstName: 'Screen', lastName: 'Shots' };
		owner.password = local.newPassword();
		await new local.N8nSession(n8n.url).setupOwnerOrLogin(owner);

		const { browser, page } = await openBrowser({ width: 1440, height: 1100 });
		stops.push(() => browser.close());
		await signIn(page, n8n.url, owner);
		if (!values.only || values.only === 'picker')
			await shootPickers(page, n8n.url, workflow.id, values.prefix);
		if (!values.only || values.only === 'runflow')
			await shootNewRunFlow(page, n8n.url, workflow.id, values.prefix);
		if (!values.only || values.only === 'newnodes')
			await shootNewNodes(page, n8n.url, workflow.id, values.prefix).catch(async (error) => {
				await page.screenshot({ path: path.join(local.LOCAL_DIR, 'screenshots-failed.png') });
				throw error;
			});
		if (!values.only || values.only === 'export')
			await shootExportItem(page, n8n.url, workflow.id, values.prefix).catch(async (error) => {
				await page.screenshot({ path: path.join(local.LOCAL_DIR, 'screenshots-failed.png') });
				throw error;
			});
		console.log(`screenshots in ${path.relative(local.ROOT, OUT_DIR)}/`);
	} finally {
		for (const stop of stops.reverse()) await stop();
	}
}

main().catch((error) => {
	console.error(error);
	process.exit(1);
});
