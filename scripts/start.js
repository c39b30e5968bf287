'use strict';
/**
 * `npm start`: build → BotDojo emulator → real n8n (installed the first time) → our packed
 * package in n8n's community package folder → credential and demo workflows → owner account →
 * n8n on http://127.0.0.1:5678. Ctrl-C stops n8n and the emulator.
 *
 * With BOTDOJO_API_KEY, BOTDOJO_ACCOUNT_ID and BOTDOJO_PROJECT_ID set (and optionally
 * BOTDOJO_BASE_URL), the credential points at the real BotDojo instead, and no emulator runs.
 * N8N_PORT and BOTDOJO_EMULATOR_PORT change the ports.
 *
 * Stopping: Ctrl-C (SIGINT), SIGTERM (npm forwards it) and a closed terminal (SIGHUP) stop n8n,
 * its task runner and the emulator; so does the end of the parent `npm` process. An n8n left
 * running by an earlier start that was killed outright (SIGKILL) is stopped at the next start.
 */
const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');

const local = require('./n8n-local');
const demos = require('./lib/demos');
const demoSetup = require('./lib/demo-setup');

const USER_FOLDER = path.join(local.LOCAL_DIR, 'user');
const OWNER_FILE = path.join(USER_FOLDER, 'owner.json');
const LOG_FILE = path.join(USER_FOLDER, 'n8n.log');
const PID_FILE = path.join(USER_FOLDER, 'n8n.pid');
const N8N_PORT = Number(process.env.N8N_PORT || 5678);
const EMULATOR_PORT = Number(process.env.BOTDOJO_EMULATOR_PORT || 3789);
// Demos whose trigger only works when the workflow is published: the public chat and the poller.
const ACTIVATE = ['bdDemoChat', 'bdDemoTrigger'];

// After SIGHUP the terminal is gone: writing to it fails, and that must not stop the clean-up.
process.stdout.on('error', () => undefined);
process.stderr.on('error', () => undefined);
const log = (message) => {
	try {
		console.log(message);
	} catch {
		// terminal closed
	}
};

function isAlive(pid) {
	try {
		process.kill(pid, 0);
		return true;
	} catch {
		return false;
	}
}

/** Stops the n8n (and its task runner) that an earlier start left running, if any. */
async function stopLeftoverN8n() {
	let pid;
	try {
		pid = Number(fs.readFileSync(PID_FILE, 'utf8'));
	} catch {
		return;
	}
	let cmdline = '';
	try {
		cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
	} catch {
		// not running, or no /proc
	}
	if (pid > 0 && isAlive(pid) && cmdline.includes(local.N8N_BIN)) {
		log(`Stopping the n8n left running by an earlier npm start (pid ${pid})…`);
		try {
			process.kill(-pid, 'SIGTERM');
		} catch {
			// gone meanwhile
		}
		for (let waited = 0; waited < 20_000 && isAlive(pid); waited += 250)
			await new Promise((resolve) => setTimeout(resolve, 250));
		try {
			process.kill(-pid, 'SIGKILL');
		} catch {
			// group already empty
		}
	}
	fs.rmSync(PID_FILE, { force: true });
}

function portIsFree(port) {
	return new Promise((resolve) => {
		const server = net.createServer();
		server.once('error', () => resolve(false));
		server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
	});
}

function realServiceFromEnv() {
	const { BOTDOJO_API_KEY, BOTDOJO_ACCOUNT_ID, BOTDOJO_PROJECT_ID, BOTDOJO_BASE_URL } = process.env;
	const given = [BOTDOJO_API_KEY, BOTDOJO_ACCOUNT_ID, BOTDOJO_PROJECT_ID].filter(Boolean).length;
	if (given === 0) return undefined;
	if (given < 3)
		throw new Error(
			'Set all three of BOTDOJO_API_KEY, BOTDOJO_ACCOUNT_ID and BOTDOJO_PROJECT_ID to use the real BotDojo (or none, for the emulator).',
		);
	return {
		baseUrl: BOTDOJO_BASE_URL || 'https://api.botdojo.com/api/v1',
		accountId: BOTDOJO_ACCOUNT_ID,
		projectId: BOTDOJO_PROJECT_ID,
		apiKey: BOTDOJO_API_KEY,
	};
}

function readOrCreateOwner() {
	if (fs.existsSync(OWNER_FILE)) return JSON.parse(fs.readFileSync(OWNER_FILE, 'utf8'));
	const owner = {
		email: 'demo@example.com',
		firstName: 'Demo',
		lastName: 'User',
		password: local.newPassword(),
	};
	fs.mkdirSync(USER_FOLDER, { recursive: true });
	fs.writeFileSync(OWNER_FILE, JSON.stringify(owner, null, 2), { mode: 0o600 });
	return owner;
}

/** What to stop on Ctrl-C or failure, last started first. */
const stoppers = [];
let stopping = false;
async function stopAll(code) {
	if (stopping) return;
	stopping = true;
	if (stoppers.length) log('\nStopping…');
	for (const stop of stoppers.reverse()) await stop().catch(() => undefined);
	if (stoppers.length) log('Stopped.');
	process.exit(code);
}

async function main() {
	const started = Date.now();
	for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => void stopAll(0));
	// `npm start` runs us as npm's child: if npm goes away without passing a signal on, stop too.
	const parent = process.ppid;
	setInterval(() => {
		if (process.ppid !== parent) void stopAll(0);
	}, 1000).unref();

	await stopLeftoverN8n();

	if (!(await portIsFree(N8N_PORT)))
		throw new Error(
			`Port ${N8N_PORT} is in use (another n8n?). Stop that program, or set N8N_PORT to another port.`,
		);

	const real = realServiceFromEnv();
	if (!real && !(await portIsFree(EMULATOR_PORT)))
		throw new Error(
			`Port ${EMULATOR_PORT} is in use (another npm start or BotDojo emulator?). Stop that program, or set BOTDOJO_EMULATOR_PORT to another port.`,
		);
	log('1/6 Building and packing the package…');
	const packed = local.buildAndPack();
	stoppers.push(async () => packed.cleanup());

	let target;
	if (real) {
		log(`2/6 Using the real BotDojo at ${real.baseUrl} (no emulator).`);
		target = real;
	} else {
		log(`2/6 Starting the BotDojo emulator on 127.0.0.1:${EMULATOR_PORT}…`);
		const { startEmulator } = require('../emulator');
		const emu = await startEmulator({ port: EMULATOR_PORT, seedDemo: true });
		stoppers.push(() => emu.close());
		target = {
			baseUrl: emu.baseUrl,
			accountId: emu.accountId,
			projectId: emu.projectId,
			apiKey: emu.keys.project,
		};
	}

	log('3/6 Checking the n8n install…');
	await local.ensureN8nInstalled({ log });

	log('4/6 Installing the packed package into n8n’s community package folder…');
	const installed = local.installPackageInto(USER_FOLDER, packed);
	packed.cleanup();
	log(`    ${path.relative(local.ROOT, installed.target)} (${installed.files} files)`);

	log('5/6 Importing the credential and the demo workflows…');
	const brokerPort = await local.freePort();
	const ports = { port: N8N_PORT, brokerPort };
	const examples = local.readExamples();
	const cli = { userFolder: USER_FOLDER, ...ports };
	const { toImport, kept } = await demos.planDemoImport({ userFolder: USER_FOLDER, cli, examples });
	// The emulator's history is new at every start: a trigger's high-water mark from an earlier
	// start would make it fire on the re-seeded requests. Cleared static data starts it from now.
	const clearStaticData = (workflow) => (real ? workflow : { ...workflow, staticData: null });
	await local.importIntoN8n({
		userFolder: USER_FOLDER,
		ports,
		credentials: [local.botDojoCredential(target)],
		workflows: [
			...toImport.map(clearStaticData),
			...(real ? [] : kept.map(({ current }) => clearStaticData(current))),
		],
	});

	log(`6/6 Starting n8n ${local.N8N_VERSION} (output in ${path.relative(local.ROOT, LOG_FILE)})…`);
	const n8n = await local.startN8n({
		userFolder: USER_FOLDER,
		...ports,
		logFile: LOG_FILE,
		onSpawn: (stop, child) => {
			stoppers.push(async () => {
				await stop();
				fs.rmSync(PID_FILE, { force: true });
			});
			if (child) fs.writeFileSync(PID_FILE, String(child.pid));
		},
	});
	n8n.exited.then((how) => {
		if (stopping) return;
		console.error(`n8n stopped by itself (${JSON.stringify(how)}); see ${LOG_FILE}.`);
		void stopAll(1);
	});

	const owner = readOrCreateOwner();
	const session = new local.N8nSession(n8n.url);
	try {
		await session.setupOwnerOrLogin(owner);
	} catch (error) {
		throw new Error(
			`Could not sign in as ${owner.email} (${error.message}). Delete .n8n-local/user/ to start over with a fresh n8n.`,
		);
	}
	for (const id of ACTIVATE)
		await local
			.activateWorkflow(session, id)
			.catch((error) => log(`  Could not publish demo ${id}: ${error.message}`));
	// The Evaluations demo reads a Data table: made here, and chosen in the demo before the demo's
	// fingerprint is taken (so the next start still sees it as unedited).
	const dataset = await demoSetup
		.setUpEvaluationDataset(session, { imported: toImport })
		.catch((error) => log(`  Could not make the Evaluations demo's Data table: ${error.message}`));
	await demos.rememberImported({ userFolder: USER_FOLDER, session, imported: toImport });
	// n8n 2.x's Chat Hub is off in a new n8n (Settings › Chat › Enable Chat); the chat demo is in it.
	const chatHub =
		Number(local.N8N_VERSION.split('.')[0]) >= 2 &&
		(await session
			.request('PUT', '/rest/chat/enabled', { enabled: true })
			.then(() => true)
			.catch((error) => log(`  Could not turn on Chat Hub: ${error.message}`)));

	const chat = examples.find((w) => w.id === 'bdDemoChat');
	const chatWebhook = chat?.nodes.find((n) => n.type.endsWith('chatTrigger'))?.webhookId;
	log('');
	log(`n8n is ready at ${n8n.url} (started in ${local.formatDuration(Date.now() - started)})`);
	log(`  Sign in with  ${owner.email}  /  ${owner.password}`);
	log(
		`  Credential "${local.CREDENTIAL_NAME}" → ${target.baseUrl} (account ${target.accountId}, project ${target.projectId})`,
	);
	if (real)
		log(
			'  The demos use the emulator’s IDs (flow_echo, flow_memory, idx_docs): put your own in their nodes.',
		);
	for (const line of demoSetup.demoLines({ url: n8n.url, examples, dataset })) log(line);
	if (kept.length) {
		log('  Kept as you edited them (n8n autosaves drafts), not replaced by the original:');
		for (const { example } of kept) log(`    ${example.id}  ${example.name}`);
		log('  To get an original back, delete that workflow in n8n and run npm start again.');
	}
	if (chatWebhook) {
		log(`  Public chat page: ${n8n.url}/webhook/${chatWebhook}/chat`);
		// n8n's hosted chat page loads its widget from a CDN: offline the page stays blank.
		log(
			'    (needs the internet: n8n loads its chat widget from cdn.jsdelivr.net, so offline the page stays blank; the editor’s Chat panel and n8n’s Chat (Chat Hub) work offline)',
		);
	}
	if (chatHub)
		log(`  Chat Hub (the chat demo as a workflow agent): ${n8n.url}/home/chat/workflow-agents`);
	log(real ? 'Press Ctrl-C to stop n8n.' : 'Press Ctrl-C to stop n8n and the emulator.');
}

main().catch((error) => {
	console.error(`\nnpm start failed: ${error.message}`);
	void stopAll(1);
});
