'use strict';
/**
 * Headless Chromium (Debian's, driven by playwright-core; no browser download) signed in to an
 * n8n: used by the e2e browser checks and by scripts/screenshots.js.
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const { chromium } = require('playwright-core');

const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

/** A browser and one page with a fresh, empty profile. */
async function openBrowser({ width = 1440, height = 900 } = {}) {
	assert.ok(
		fs.existsSync(CHROMIUM),
		`${CHROMIUM} is missing: apt-get update && apt-get install -y chromium (or set CHROMIUM_PATH)`,
	);
	const browser = await chromium.launch({
		executablePath: CHROMIUM,
		headless: true,
		args: [
			'--no-sandbox',
			'--disable-gpu',
			'--disable-quic',
			'--no-first-run',
			'--disable-background-networking',
			'--disable-component-update',
			'--disable-sync',
		],
	});
	const context = await browser.newContext({ viewport: { width, height } });
	const page = await context.newPage();
	page.setDefaultTimeout(90_000);
	return { browser, page };
}

/** Signs in on n8n's sign-in page as a user would. */
async function signIn(page, n8nUrl, { email, password }) {
	await page.goto(`${n8nUrl}/signin`);
	await page.fill('input[name="emailOrLdapLoginId"]', email);
	await page.fill('input[name="password"]', password);
	await page.click('[data-test-id="form-submit-button"]');
	await page.waitForURL((url) => !url.pathname.includes('signin'));
}

module.exports = { openBrowser, signIn };
