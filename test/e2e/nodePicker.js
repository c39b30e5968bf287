'use strict';
/**
 * The node picker (n8n's "node creator"), driven as a user would: open it, type a search, read
 * the names it lists. Used by checks-browser.js on an already signed-in page.
 */
const assert = require('node:assert/strict');
const path = require('node:path');
const { test } = require('node:test');

// Every node of the package, by the name the picker shows.
const OUR_NODE_NAMES = [
	'BotDojo Create Session',
	'BotDojo Export Requests',
	'BotDojo Query Index',
	'BotDojo Run Flow',
	'BotDojo Trigger',
	'BotDojo Upload Document',
];

/**
 * The name the picker shows for a node. n8n lists a trigger whose event parameter is "Trigger On"
 * under its app's name, with the events as its actions (as it lists Slack Trigger under "Slack").
 */
function pickerName(name) {
	return name === 'BotDojo Trigger' ? 'BotDojo' : name;
}

// The Trigger On values, as the picker lists them among the trigger's events ("Triggers (3)").
const TRIGGER_EVENTS = ['On complete or error', 'On complete only', 'On error only'];

/** Types `text` into the open picker's search and returns the node names it lists. */
async function searchPicker(page, text) {
	const creator = page.locator('[data-test-id="node-creator"]');
	await creator.waitFor({ state: 'visible' });
	const input = creator.locator('input[data-test-id="node-creator-search-bar"]');
	await input.fill('');
	await input.fill(text);
	// The list re-renders as the search settles; wait until it names something or says "No results".
	await page.waitForFunction(() => {
		const root = document.querySelector('[data-test-id="node-creator"]');
		return (
			root?.querySelector('[data-test-id="node-creator-item-name"]') ||
			root?.querySelector('[data-test-id="node-creator-no-results"]')
		);
	});
	await page.waitForTimeout(400);
	const names = await creator.locator('[data-test-id="node-creator-item-name"]').allInnerTexts();
	return [...new Set(names.map((name) => name.trim()))];
}

/** The names of our nodes among `names`, sorted. */
function oursAmong(names) {
	return names.filter((name) => OUR_NODE_NAMES.map(pickerName).includes(name)).sort();
}

/** Screenshot of the picker as it is now. */
async function shootPicker(page, dir, file) {
	await page.screenshot({ path: path.join(dir, file) });
}

/**
 * Registers the picker checks inside checks-browser.js's describe block: `getPage()` gives its
 * signed-in page. Searching "BotDojo" lists all six nodes in the trigger picker ("What triggers
 * this workflow?"), the regular picker ("What happens next?") and the AI view; each node also
 * comes up for its own name.
 */
function registerPickerChecks(env, getPage, shotsDir) {
	const all = OUR_NODE_NAMES.map(pickerName).sort();

	test('trigger picker: "BotDojo" and each node\'s name find our nodes', async () => {
		const page = getPage();
		await page.goto(`${env.n8n.url}/workflow/new`);
		await page.waitForSelector('[data-test-id="canvas-wrapper"]');
		await page.click('[data-test-id="canvas-add-button"]');
		const found = oursAmong(await searchPicker(page, 'BotDojo'));
		await shootPicker(page, shotsDir, 'picker-trigger-botdojo.png');
		assert.deepEqual(found, all, 'trigger picker, search "BotDojo"');
		for (const name of OUR_NODE_NAMES)
			assert.ok(
				(await searchPicker(page, name)).includes(pickerName(name)),
				`trigger picker, search "${name}"`,
			);
		// The trigger's entry opens its events: one per Trigger On value.
		await searchPicker(page, 'BotDojo Trigger');
		await page
			.locator('[data-test-id="node-creator"] [data-test-id="node-creator-item-name"]')
			.getByText('BotDojo', { exact: true })
			.first()
			.click();
		for (const event of TRIGGER_EVENTS)
			await page.getByText(event, { exact: true }).first().waitFor({ state: 'visible' });
		await shootPicker(page, shotsDir, 'picker-trigger-events.png');
		await page.keyboard.press('Escape');
	});

	test('"What happens next?" and its AI view: "BotDojo" and each node\'s name find our nodes', async () => {
		const page = getPage();
		await page.goto(`${env.n8n.url}/workflow/bdDemoIndex`);
		await page.waitForSelector('[data-test-id="canvas-node"]');
		await page.click('[data-test-id="node-creator-plus-button"]');
		const found = oursAmong(await searchPicker(page, 'BotDojo'));
		await shootPicker(page, shotsDir, 'picker-next-botdojo.png');
		assert.deepEqual(found, all, '"What happens next?", search "BotDojo"');
		for (const name of OUR_NODE_NAMES)
			assert.ok(
				(await searchPicker(page, name)).includes(pickerName(name)),
				`"What happens next?", "${name}"`,
			);

		// The AI view, opened from the regular picker's own list ("Advanced AI" in n8n 1.85).
		await page.locator('input[data-test-id="node-creator-search-bar"]').fill('');
		await page
			.locator('[data-test-id="node-creator"] [data-test-id="item-iterator-item"]')
			.getByText(/^(Advanced )?AI$/)
			.first()
			.click();
		const inAiView = oursAmong(await searchPicker(page, 'BotDojo'));
		await shootPicker(page, shotsDir, 'picker-ai-view-botdojo.png');
		assert.deepEqual(inAiView, all, 'AI view, search "BotDojo"');
		await page.keyboard.press('Escape');
	});
}

module.exports = { OUR_NODE_NAMES, searchPicker, oursAmong, registerPickerChecks };
