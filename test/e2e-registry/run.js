'use strict';
/**
 * `npm run test:e2e:registry`: the install path most users take. The packed package is published
 * to a local npm registry (verdaccio on 127.0.0.1); a real n8n pointed at it
 * (N8N_COMMUNITY_PACKAGES_REGISTRY) installs it through Settings → Community Nodes → Install in
 * Chromium, runs one BotDojo node against the emulator, updates it to a newer published version
 * (Update), uninstalls it and installs it again. Everything it starts it stops, and its folders
 * (in the git-ignored .n8n-local/) are removed (E2E_KEEP=1 keeps them).
 *
 * A registry other than npmjs.org is a licensed feature of n8n 2.40.7
 * (community-packages.service.js, getNpmRegistry: `feat:communityNodes:customRegistry`). This check
 * switches on that one feature through n8n's own test hook (E2E_TESTS=true,
 * PATCH /rest/e2e/feature); every other step is what an unlicensed n8n does with npmjs.org.
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { after, before, test } = require('node:test');

const local = require('../../scripts/n8n-local');
const { openBrowser, signIn } = require('../../scripts/lib/browser');
const { startEmulator } = require('../../emulator');
const { ensureVerdaccio, startRegistry } = require('./registry');

const NAME = local.PACKAGE.name;
const FIRST = local.PACKAGE.version;
const [major, minor, patch] = FIRST.split(/[.-]/).map(Number);
const NEWER = `${major}.${minor}.${patch + 1}`;
const WORKFLOW_ID = 'bdRegistryE2e';
const NODE = 'Index status';
const started = Date.now();
const log = (message) => console.log(`[e2e-registry] ${message}`);

const env = {};

/** Manual Trigger → BotDojo Query Index (status of the emulator's idx_docs). */
const workflow = {
	id: WORKFLOW_ID,
	name: 'Registry install check',
	active: false,
	settings: {},
	connections: { Start: { main: [[{ node: NODE, type: 'main', index: 0 }]] } },
	nodes: [
		{
			id: 'start',
			name: 'Start',
			type: 'n8n-nodes-base.manualTrigger',
			typeVersion: 1,
			position: [0, 0],
			parameters: {},
		},
		{
			id: 'status',
			name: NODE,
			type: `${NAME}.botDojoQueryIndex`,
			typeVersion: 1,
			position: [220, 0],
			parameters: {
				operation: 'getStatus',
				indexId: { __rl: true, mode: 'id', value: 'idx_docs' },
			},
			credentials: { botDojoApi: { id: local.CREDENTIAL_ID, name: local.CREDENTIAL_NAME } },
		},
	],
};

before(async () => {
	env.emu = await startEmulator({ port: 0 });
	await local.ensureN8nInstalled({ log });
	ensureVerdaccio();
	env.packed = local.buildAndPack();
	fs.mkdirSync(local.LOCAL_DIR, { recursive: true });
	env.dir = fs.mkdtempSync(path.join(local.LOCAL_DIR, 'registry-e2e-'));
	env.registry = await startRegistry({
		dir: path.join(env.dir, 'registry'),
		port: await local.freePort(),
	});
	env.registry.publish(env.packed.tarball);
	log(`${NAME}@${FIRST} published to ${env.registry.url}`);

	env.userFolder = path.join(env.dir, 'n8n');
	env.ports = { port: await local.freePort(), brokerPort: await local.freePort() };
	const credential = local.botDojoCredential({
		baseUrl: env.emu.baseUrl,
		accountId: env.emu.accountId,
		projectId: env.emu.projectId,
		apiKey: env.emu.keys.project,
	});
	await local.importIntoN8n({
		userFolder: env.userFolder,
		ports: env.ports,
		credentials: [credential],
		workflows: [workflow],
	});
	env.n8n = await local.startN8n({
		userFolder: env.userFolder,
		...env.ports,
		logFile: path.join(env.dir, 'n8n.log'),
		extraEnv: {
			E2E_TESTS: 'true',
			N8N_COMMUNITY_PACKAGES_REGISTRY: env.registry.url,
			// n8n 2.40.7 runs `npm outdated` (the Update button) without its registry setting
			// (community-packages.lifecycle.service.js, listInstalledPackages): npm's own
			// registry setting must name the same registry. A cache of this run only.
			npm_config_registry: env.registry.url,
			npm_config_cache: path.join(env.dir, 'npm-cache'),
			npm_config_prefer_online: 'true',
		},
		onSpawn: (stop) => (env.stopN8n = stop),
	});
	const feature = await fetch(`${env.n8n.url}/rest/e2e/feature`, {
		method: 'PATCH',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({ feature: 'feat:communityNodes:customRegistry', enabled: true }),
	});
	assert.equal(feature.status, 200, 'n8n switched on its custom-registry feature');
	const owner = {
		email: 'registry@example.com',
		firstName: 'Registry',
		lastName: 'Check',
		password: local.newPassword(),
	};
	env.session = new local.N8nSession(env.n8n.url);
	await env.session.setupOwnerOrLogin(owner);
	({ browser: env.browser, page: env.page } = await openBrowser());
	await signIn(env.page, env.n8n.url, owner);
	log(`n8n ${local.N8N_VERSION} on ${env.n8n.url}, ready after ${seconds()} s`);
});

after(async () => {
	await env.browser?.close();
	await env.stopN8n?.();
	await env.registry?.stop();
	await env.emu?.close();
	env.packed?.cleanup();
	if (env.dir && process.env.E2E_KEEP !== '1') {
		if (env.userFolder) local.removeUserFolder(env.userFolder);
		fs.rmSync(env.dir, { recursive: true, force: true });
	}
	log(`run time ${seconds()} s`);
});

const seconds = () => Math.round((Date.now() - started) / 1000);

/**
 * One step of the sequence: each needs the one before, so after a failure the rest fail at once,
 * naming it; a failed step leaves a screenshot in the git-ignored .e2e-screenshots/.
 */
function step(name, fn) {
	test(name, async () => {
		assert.equal(env.failed, undefined, `an earlier step failed: ${env.failed}`);
		try {
			await fn();
		} catch (error) {
			env.failed = name;
			const dir = path.join(local.ROOT, '.e2e-screenshots');
			fs.mkdirSync(dir, { recursive: true });
			await env.page
				?.screenshot({ path: path.join(dir, 'registry-failed-step.png') })
				.catch(() => undefined);
			throw error;
		}
	});
}

/** Our package as n8n's REST API lists it, or undefined. */
async function installedPackage() {
	const { data } = await env.session.request('GET', '/rest/community-packages');
	return data.find((entry) => entry.packageName === NAME);
}

const card = () => env.page.locator('[data-test-id="community-package-card"]', { hasText: NAME });

/** The page's Install button: "Install a community node" while none is installed. */
const installButton = () =>
	env.page.getByRole('button', { name: /^Install( a community node)?$/ }).first();

async function openCommunityNodes() {
	await env.page.goto(`${env.n8n.url}/settings/community-nodes`);
	await installButton().waitFor();
}

/** Settings → Community Nodes → Install: name, the risk checkbox, Install. */
async function installThroughUi() {
	await openCommunityNodes();
	await installButton().click();
	const name = env.page.locator('[data-test-id="package-name-input"]');
	await ((await name.evaluate((el) => el.tagName === 'INPUT')) ? name : name.locator('input')).fill(
		NAME,
	);
	await env.page.locator('[data-test-id="user-agreement-checkbox"]').click();
	await env.page.locator('[data-test-id="install-community-package-button"]').click();
	await card().waitFor();
}

/** Runs the workflow with the installed node; checks what the node returned and sent. */
async function runBotDojoNode() {
	const mark = env.emu.requests.length;
	const { outputs } = await local.executeWorkflow(
		{ userFolder: env.userFolder, port: env.ports.port },
		WORKFLOW_ID,
	);
	const [item] = outputs[NODE] ?? [];
	assert.ok(item, `the BotDojo node returned no item: ${JSON.stringify(outputs)}`);
	assert.equal(item.json.indexId ?? item.json.id, 'idx_docs');
	const requests = env.emu.requests.slice(mark);
	assert.deepEqual(
		requests.map((r) => [r.endpoint, r.status, r.headers.authorization]),
		[['getStatus', 200, env.emu.keys.project]],
	);
}

step(`installs ${NAME}@${FIRST} from the registry through Settings → Community Nodes`, async () => {
	assert.equal(await installedPackage(), undefined, 'not installed before');
	await installThroughUi();
	await card().getByText(`v${FIRST}`).waitFor();
	const installed = await installedPackage();
	assert.equal(installed.installedVersion, FIRST);
	assert.equal(installed.installedNodes.length, local.PACKAGE.n8n.nodes.length);
});

step('runs a BotDojo node of the installed package against the emulator', runBotDojoNode);

step(`updates to ${NEWER} published later (Update, Confirm update)`, async () => {
	const newer = fs.mkdtempSync(path.join(os.tmpdir(), 'botdojo-newer-'));
	try {
		execFileSync('tar', ['-xzf', env.packed.tarball, '-C', newer, '--strip-components=1']);
		const manifest = path.join(newer, 'package.json');
		const pkg = JSON.parse(fs.readFileSync(manifest, 'utf8'));
		fs.writeFileSync(manifest, JSON.stringify({ ...pkg, version: NEWER }, null, 2));
		env.registry.publish(newer);
	} finally {
		fs.rmSync(newer, { recursive: true, force: true });
	}
	await openCommunityNodes();
	await card().getByRole('button', { name: 'Update' }).click();
	await env.page.getByRole('button', { name: 'Confirm update' }).click();
	await card().getByText(`v${NEWER}`).waitFor();
	assert.equal((await installedPackage()).installedVersion, NEWER);
});

step('uninstalls it (Uninstall package, Confirm uninstall): its node types are gone', async () => {
	await openCommunityNodes();
	await card().locator('[data-test-id="action-toggle"]').click();
	await env.page.getByText('Uninstall package', { exact: true }).click();
	await env.page.getByRole('button', { name: 'Confirm uninstall' }).click();
	await card().waitFor({ state: 'detached' });
	assert.equal(await installedPackage(), undefined);
	const { json: types } = await env.session.request('GET', '/types/nodes.json');
	assert.equal(types.filter((type) => type.name.startsWith(`${NAME}.`)).length, 0);
});

step(`installs it again: ${NEWER}, and its node runs`, async () => {
	await installThroughUi();
	await card().getByText(`v${NEWER}`).waitFor();
	assert.equal((await installedPackage()).installedVersion, NEWER);
	await runBotDojoNode();
});
