'use strict';
/**
 * End-to-end suite (`npm run test:e2e`): a real n8n (pinned, from the cached install) with our
 * packed package, against the BotDojo emulator running in this process, and Debian's Chromium.
 * Plain node:test; not part of `npm test` (jest ignores test/e2e/).
 *
 * Screenshots and n8n's log of the run end up in .e2e-screenshots/ (git-ignored).
 *   E2E_KEEP=1        keep the whole n8n user folder (.n8n-local/e2e-*) afterwards
 */
const { before, after } = require('node:test');

const env = require('./harness');
const { reportNotApplicable } = require('./n8nFeatures');

/**
 * The checks are registered once n8n is installed: which of them apply is read off the installed
 * n8n (n8nFeatures.js). node:test runs tests registered after the file has loaded.
 */
async function registerChecks() {
	await env.install();
	before(() => env.setup(), { timeout: 30 * 60_000 });
	after(() => env.teardown(), { timeout: 120_000 });

	const trigger = require('./checks-trigger');






	require('./checks-slowRun').registerSlowRunChecks(env);



	require('./checks-browser')(env);



	reportNotApplicable(env.log);
}

registerChecks().catch((error) => {
	console.error(error.message);
	process.exitCode = 1;
});
