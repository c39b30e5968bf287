'use strict';
/**
 * `npm start`: build → BotDojo emulator → real n8n (installed the first time) → our packed
 * package in n8n's community package folder → credential and demo workflows → owner account →
 * n8n on http://127.0.0.1:5678. Ctrl-C stops n8n and the emulator.
 *
 * With BOTDOJO_API_KEY, BOTDOJO_ACCOUNT_ID and BOTDOJO_PROJECT_ID set (and optionally
 * BOTDOJO_BASE_URL), the credential points at the real BotDojo instead, and no emulator runs.
 * N8N_PORT, BOTDOJO_EMULATOR_PORT and N8N_RUNNERS_BROKER_PORT (n8n's task broker; a free port
 * when unset) change the ports.
 *
 * Stopping: Ctrl-C (SIGINT), SIGTERM (npm forwards it) and a closed terminal (SIGHUP) stop n8n,
 * its task runner and the emulator; so does the end of the parent `npm` process. A second
 * `npm start` in the same clone refuses while the first runs. An n8n left running by an earlier
 * start that was killed outright (SIGKILL) is stopped at the next start.
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
// The `npm start` that runs on this clone: a second one refuses instead of stopping its n8n.
const START_PID_FILE = path.join(USER_FOLDER, 'npm-start.pid');
const N8N_PORT = Number(process.env.N8N_PORT || 5678);
const EMULATOR_PORT = Number(process.env.BOTDOJO_EMULATOR_PORT || 3789);
const BROKER_PORT = Number(process.env.N8N_RUNNERS_BROKER_PORT) || undefined;
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

function readPid(file) {
	try {
		return Number(fs.readFileSync(file, 'utf8')) || undefined;
	} catch {
		return undefined;
	}
}

/** A process's command line ('' when it is gone or the system has no /proc). */
function commandLine(pid) {
	try {
		return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
	} catch {
		return '';
	}
}

/**
 * Makes this the one `npm start` of the clone, or refuses: a second one would stop the first's
 * n8n (the leftover clean-up below) and import over its database. The claim is a file created
 * exclusively, holding our pid, removed when we exit; one left by a killed start is taken over.
 */
function claimTheClone() {
	fs.mkdirSync(USER_FOLDER, { recursive: true });
	for (;;) {
		try {
			fs.writeFileSync(START_PID_FILE, String(process.pid), { flag: 'wx' });
			process.on('exit', () => {
				if (readPid(START_PID_FILE) === process.pid) fs.rmSync(START_PID_FILE, { force: true });
			});
			return;
		} catch (error) {
			if (error.code !== 'EEXIST') throw error;
		}
		const pid = readPid(START_PID_FILE);
		const cmdline = pid ? commandLine(pid) : '';
		if (pid && isAlive(pid) && (!cmdline || cmdline.includes('start.js')))
			throw new Error(
				`npm start is already running in this clone (pid ${pid}); it keeps running. Use its n8n, or stop it first (Ctrl-C in its terminal, or kill ${pid}).`,
			);
		fs.rmSync(START_PID_FILE, { force: true });
	}
}

/** Stops the n8n (and its task runner) that an earlier start left running, if any. */
async function stopLeftoverN8n() {
	const pid = readPid(PID_FILE);
	if (!pid) return;
	if (isAlive(pid) && commandLine(pid).includes(local.N8N_BIN)) {
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

async function refuseBusyPort(port, holder, setting) {
	if (!(await portIsFree(port)))
		throw new Error(
			`Port ${port} is in use (${holder}). Stop that program, or set ${setting} to another port.`,
		);
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

	claimTheClone();
	await stopLeftoverN8n();

	await refuseBusyPort(N8N_PORT, 'another n8n?', 'N8N_PORT');
	if (BROKER_PORT)
		await refuseBusyPort(BROKER_PORT, 'another n8n’s task broker?', 'N8N_RUNNERS_BROKER_PORT');
	const real = realServiceFromEnv();
	if (!real)
		await refuseBusyPort(
			EMULATOR_PORT,
			'another npm start or BotDojo emulator?',
			'BOTDOJO_EMULATOR_PORT',
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
	const ports = { port: N8N_PORT, brokerPort: BROKER_PORT ?? (await local.freePort()) };
	const url = `http://127.0.0.1:${N8N_PORT}`;
	const examples = local.readExamples().map((example) => demos.atAddress(example, url));
	const cli = { userFolder: USER_FOLDER, ...ports };
	const { toImport, kept, published } = await demos.planDemoImport({
		userFolder: USER_FOLDER,
		cli,
		examples,
	});
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
	// The import unpublishes: publish again what the user had published, and what needs it.
	for (const id of new Set([...ACTIVATE, ...published]))
		await local
			.activateWorkflow(session, id)
			.catch((error) => log(`  Could not publish demo ${id}: ${error.message}`));
	// The Evaluations demo reads a Data table: made here, and chosen in the demo before the demo's
	// fingerprint is taken (so the next start still sees it as unedited).
	const dataset = await demoSetup
		.setUpEvaluationDataset(session, { imported: toImport })
		.catch((error) => log(`  Could not make the Evaluations demo's Data table: ${error.message}`));
	await demos.rememberImported({ userFolder: USER_FOLDER, session, imported: toImport });
	await demos
		.listInDemoOrder(session, examples)
		.catch((error) => log(`  Could not list the demos in order: ${error.message}`));
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
	for (const line of demoSetup.demoLines({ url: n8n.url, examples, dataset, published })) log(line);
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
