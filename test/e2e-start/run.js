'use strict';
/**
 * `npm run test:e2e:start`: the first hour with `npm start`, as a user lives it. The real script
 * runs in a copy of this clone (its own `.n8n-local/user`, the cached n8n install linked in), on
 * free ports, twice: the first start, what a user does in the editor (Chromium), then a restart.
 * - n8n's task broker listens on N8N_RUNNERS_BROKER_PORT when it is set;
 * - n8n's editor cache is a private folder of the user's;
 * - a second `npm start` in the clone refuses, and the first one keeps running;
 * - the workflow list shows the demos in order; demo 9's note gives this n8n's port;
 * - opening demo 6 and pressing Fetch Test Event does not make it "kept as you edited them", nor
 *   does an edit undone in the editor, in any demo;
 * - a published demo 9 is still published after the restart, and its MCP address answers.
 * Everything it starts it stops; the copy is removed (E2E_KEEP=1 keeps it).
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { after, before, test } = require('node:test');

const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const {
	StreamableHTTPClientTransport,
} = require('@modelcontextprotocol/sdk/client/streamableHttp.js');

const local = require('../../scripts/n8n-local');
const { openBrowser, signIn } = require('../../scripts/lib/browser');
const { copyRepository, removeCopy } = require('../helpers/packageScripts');

const log = (message) => console.log(`[e2e-start] ${message}`);
const START_TIMEOUT_MS = 15 * 60_000;
const env = { starts: [] };

/** `node scripts/start.js` in the copy; resolves once it printed its last line, or exited. */
function npmStart() {
	const child = spawn(process.execPath, ['scripts/start.js'], {
		cwd: env.copy,
		env: { ...process.env, ...env.vars },
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	const run = { child, stdout: '', stderr: '', started: Date.now() };
	run.exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
	child.stdout.on('data', (chunk) => (run.stdout += chunk));
	child.stderr.on('data', (chunk) => (run.stderr += chunk));
	env.starts.push(run);
	run.ready = new Promise((resolve) => {
		const check = () => {
			if (run.stdout.includes('Press Ctrl-C to stop')) resolve(true);
		};
		child.stdout.on('data', check);
		run.exited.then(() => resolve(false));
	});
	return run;
}

async function stop(run) {
	if (run.child.exitCode === null && run.child.signalCode === null) run.child.kill('SIGINT');
	return await run.exited;
}

function listening(port) {
	return new Promise((resolve) => {
		const socket = net.connect(port, '127.0.0.1');
		socket.once('connect', () => {
			socket.destroy();
			resolve(true);
		});
		socket.once('error', () => resolve(false));
	});
}

/** The demos' names as n8n's list (sorted as the editor sorts it by default) gives them. */
async function demosAsListed(session) {
	const { data } = await session.request(
		'GET',
		'/rest/workflows?sortBy=updatedAt:desc&filter=%7B%22isArchived%22%3Afalse%7D',
	);
	const ids = new Set(env.examples.map((w) => w.id));
	return data.filter((w) => ids.has(w.id)).map((w) => w.name);
}

/** The lines of `npm start`'s "Kept as you edited them" list. */
function keptDemos(stdout) {
	const lines = stdout.split('\n');
	const at = lines.findIndex((line) => line.includes('Kept as you edited them'));
	if (at < 0) return [];
	const kept = [];
	for (const line of lines.slice(at + 1)) {
		const match = /^ {4}(\S+) {2}/.exec(line);
		if (!match) break;
		kept.push(match[1]);
	}
	return kept;
}

async function signedInSession() {
	const owner = JSON.parse(
		fs.readFileSync(path.join(env.copy, '.n8n-local', 'user', 'owner.json'), 'utf8'),
	);
	const session = new local.N8nSession(env.url);
	await session.setupOwnerOrLogin(owner);
	return { session, owner };
}

before(
	async () => {
		await local.ensureN8nInstalled({ log });
		env.copy = copyRepository();
		// The copy's own user folder, with the cached n8n install (3 GB) linked in, not copied.
		const localDir = path.join(env.copy, '.n8n-local');
		fs.mkdirSync(localDir);
		const install = path.basename(local.INSTALL_DIR);
		fs.symlinkSync(fs.realpathSync(local.INSTALL_DIR), path.join(localDir, install), 'dir');
		const [port, emulator, broker] = [
			await local.freePort(),
			await local.freePort(),
			await local.freePort(),
		];
		env.brokerPort = broker;
		env.url = `http://127.0.0.1:${port}`;
		env.vars = {
			N8N_PORT: String(port),
			BOTDOJO_EMULATOR_PORT: String(emulator),
			N8N_RUNNERS_BROKER_PORT: String(broker),
			BOTDOJO_API_KEY: '',
			BOTDOJO_ACCOUNT_ID: '',
			BOTDOJO_PROJECT_ID: '',
		};
		env.examples = local.readExamples();
		log(`copy of the clone in ${env.copy}; n8n on ${env.url}, task broker on ${broker}`);
		env.first = npmStart();
		assert.ok(await env.first.ready, `the first npm start failed:\n${env.first.stderr}`);
		log(`first start ready in ${local.formatDuration(Date.now() - env.first.started)}`);
		({ session: env.session, owner: env.owner } = await signedInSession());
	},
	{ timeout: START_TIMEOUT_MS },
);

after(
	async () => {
		await env.browser?.close();
		for (const run of env.starts) await stop(run);
		for (const run of env.starts)
			if (run.child.exitCode !== 0) log(`an npm start ended with:\n${run.stdout}\n${run.stderr}`);
		if (env.copy && process.env.E2E_KEEP !== '1') {
			const userFolder = path.join(env.copy, '.n8n-local', 'user');
			if (fs.existsSync(userFolder)) local.removeUserFolder(userFolder);
			removeCopy(env.copy);
		}
	},
	{ timeout: 120_000 },
);

test("n8n's task broker listens on N8N_RUNNERS_BROKER_PORT", async () => {
	assert.ok(await listening(env.brokerPort), `nothing listens on ${env.brokerPort}`);
	const n8nLog = fs.readFileSync(path.join(env.copy, '.n8n-local', 'user', 'n8n.log'), 'utf8');
	assert.match(n8nLog, new RegExp(`[Bb]roker.*\\b${env.brokerPort}\\b`));
});

test("n8n's editor cache is a private folder of the user's", () => {
	const link = path.join(env.copy, '.n8n-local', 'user', '.cache');
	assert.ok(fs.lstatSync(link).isSymbolicLink());
	const target = fs.lstatSync(fs.readlinkSync(link));
	assert.ok(target.isDirectory());
	assert.equal(target.uid, process.getuid());
	assert.equal((target.mode & 0o777).toString(8), '700');
	assert.ok(fs.existsSync(path.join(link, 'n8n', 'public')), 'n8n put its editor there');
});

test('a second npm start in the clone refuses, and the first keeps running', async () => {
	const second = npmStart();
	const code = await second.exited;
	assert.equal(code, 1);
	assert.match(
		second.stderr,
		new RegExp(
			`npm start is already running in this clone \\(pid ${env.first.child.pid}\\); it keeps running\\.`,
		),
	);
	assert.doesNotMatch(second.stdout, /Building|Stopping/);
	assert.equal(env.first.child.exitCode, null, 'the first npm start still runs');
	assert.doesNotMatch(env.first.stderr, /stopped by itself/);
	const health = await fetch(`${env.url}/healthz/readiness`);
	assert.equal(health.status, 200);
});

test('the workflow list shows the demos in order, and demo 9 gives this n8n’s port', async () => {
	({ browser: env.browser, page: env.page } = await openBrowser());
	const { page } = env;
	await signIn(page, env.url, env.owner);
	await page.goto(`${env.url}/home/workflows`);
	const names = page.locator('[data-test-id="workflow-card-name"]');
	await names.first().waitFor();
	const shown = (await names.allInnerTexts()).map((text) => text.trim());
	const demoNames = env.examples.map((w) => w.name);
	assert.deepEqual(
		shown.filter((name) => demoNames.includes(name)),
		demoNames,
	);
	await page.goto(`${env.url}/workflow/bdDemoMcp`);
	const note = page.locator('[data-test-id="sticky"]').first();
	await note.waitFor();
	const text = await note.innerText();
	assert.ok(text.includes(`${env.url}/mcp/botdojo`), text);
	assert.ok(!text.includes('127.0.0.1:5678'), text);
});

/** Node by node, what n8n stored differently from `before` (for a failure's message). */
function changedNodes(before, after) {
	return after.nodes
		.map((node) => [before.nodes.find((old) => old.name === node.name), node])
		.filter(([old, node]) => JSON.stringify(old) !== JSON.stringify(node))
		.map(([old, node]) => `${JSON.stringify(old)}\n  saved as ${JSON.stringify(node)}`);
}

/** The editor's saves of a workflow (PATCH), as they start: each one's answer. */
function watchSaves(page) {
	const saves = [];
	page.on('request', (request) => {
		if (request.method() === 'PATCH' && request.url().includes('/rest/workflows/'))
			saves.push(request.response());
	});
	return saves;
}

/** Waits out n8n's autosave (1.5 s after a change) and any save it began. */
async function autosaved() {
	await new Promise((resolve) => setTimeout(resolve, 3_000));
	await Promise.all(env.saves);
}

test('opening demo 6 and pressing Fetch Test Event leaves it unedited', async () => {
	const { page } = env;
	env.saves ??= watchSaves(page);
	const before = (await env.session.request('GET', '/rest/workflows/bdDemoTrigger')).data;
	await page.goto(`${env.url}/workflow/bdDemoTrigger`);
	await page.dblclick('[data-test-id="canvas-node"][data-node-name="BotDojo Trigger"]');
	const panel = page.locator('[data-test-id="ndv"]');
	await panel.waitFor({ state: 'visible' });
	await panel.locator('[data-test-id="node-execute-button"]').click();
	await panel.locator('[data-test-id="run-data-item-count"]').first().waitFor();
	await page.keyboard.press('Escape');
	await panel.waitFor({ state: 'hidden' });
	await autosaved();
	const afterwards = (await env.session.request('GET', '/rest/workflows/bdDemoTrigger')).data;
	assert.equal(afterwards.versionId, before.versionId, changedNodes(before, afterwards).join('\n'));
});

// n8n's editor holds a workflow as it would save it: nodes on its grid, parameters at their
// default left out. An edit undone (a node deactivated and activated again) makes it compare
// that with what is stored and save any difference: a demo stored otherwise would then be "kept
// as you edited them" at the next start, as demo 6 was (issue 36).
test('every demo, with an edit undone in the editor, stays as npm start imported it', async () => {
	const { page } = env;
	env.saves ??= watchSaves(page);
	const demos = require('../../scripts/lib/demos');
	const userFolder = path.join(env.copy, '.n8n-local', 'user');
	const record = JSON.parse(fs.readFileSync(path.join(userFolder, 'demos.json'), 'utf8'));
	const edited = [];
	for (const { id, nodes } of env.examples) {
		const before = (await env.session.request('GET', `/rest/workflows/${id}`)).data;
		await page.goto(`${env.url}/workflow/${id}`);
		// A node that can be deactivated (a sticky note cannot).
		const { name } = nodes.find((node) => !node.type.endsWith('stickyNote'));
		const node = page.locator(`[data-test-id="canvas-node"][data-node-name="${name}"]`);
		for (let toggle = 0; toggle < 2; toggle++) {
			await node.click({ button: 'right' });
			await page.locator('[data-test-id="context-menu-item-toggle_activation"]').click();
		}
		await autosaved();
		const afterwards = (await env.session.request('GET', `/rest/workflows/${id}`)).data;
		if (demos.fingerprint(afterwards) !== record[id].fingerprint)
			edited.push(`${id}:\n${changedNodes(before, afterwards).join('\n')}`);
	}
	assert.deepEqual(edited, []);
});

test(
	'after a restart: a published demo 9 is still published and answers; demo 6 is not listed as edited; the list keeps its order',
	{ timeout: START_TIMEOUT_MS },
	async () => {
		await local.activateWorkflow(env.session, 'bdDemoMcp');
		assert.equal(await stop(env.first), 0);
		const again = npmStart();
		assert.ok(await again.ready, `the restart failed:\n${again.stderr}`);
		log(`restart ready in ${local.formatDuration(Date.now() - again.started)}`);
		assert.deepEqual(keptDemos(again.stdout), []);
		const mcp = `${env.url}/mcp/botdojo`;
		assert.ok(again.stdout.includes(`Published: point an MCP client at ${mcp}`), again.stdout);
		const { session } = await signedInSession();
		const { data } = await session.request('GET', '/rest/workflows/bdDemoMcp');
		assert.ok(data.activeVersionId, 'demo 9 is published');
		// n8n registers a published trigger's webhook just after it answers: a bounded retry.
		let client;
		for (let attempt = 1; !client; attempt++) {
			const candidate = new Client({ name: 'botdojo-e2e-start', version: '1.0.0' });
			try {
				await candidate.connect(new StreamableHTTPClientTransport(new URL(mcp)), {
					timeout: 20_000,
				});
				client = candidate;
			} catch (error) {
				if (error.code !== 404 || attempt >= 40) throw error;
				await new Promise((resolve) => setTimeout(resolve, 250));
			}
		}
		const { tools } = await client.listTools();
		await client.close();
		assert.deepEqual(tools.map((tool) => tool.name).sort(), [
			'ask_support_flow',
			'search_handbook',
		]);
		assert.deepEqual(
			await demosAsListed(session),
			env.examples.map((w) => w.name),
		);
	},
);
