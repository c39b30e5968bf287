'use strict';
/**
 * One real n8n for the whole suite: the BotDojo emulator runs in this process (its request log
 * is readable), n8n runs on a fresh user folder with our packed package, the credential, the
 * demo workflows and the suite's own workflows, and an owner account is signed in.
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');

const local = require('../../scripts/n8n-local');
const { startEmulator } = require('../../emulator');
const { scaledDefaultEnv } = require('./checks-slowRun');
const { startFakeOpenAi } = require('./fakeOpenAi');
const { startFakeSmtp } = require('./fakeSmtp');

const E2E_WORKFLOWS_DIR = path.join(__dirname, 'workflows');
const ARTIFACTS_DIR = path.join(local.ROOT, '.e2e-screenshots');
// Workflows whose trigger needs the workflow published: webhooks, the public chat, the poller.
const ACTIVATE = [
	'bdDemoChat',
	'bdDemoTrigger',
	'bdE2eStreamWebhook',
	'bdDemoAgent',
	'bdE2eChatLastNode',
	'bdDemoMcp',
	'bdE2eMcpUnknownFlow',
	'bdE2eHumanReview',
];
const log = (message) => console.log(`[e2e] ${message}`);

/** Shared state of the suite; filled by setup(). */
const env = {
	emu: undefined,
	openAi: undefined,
	smtp: undefined,
	n8n: undefined,
	session: undefined,
	userFolder: undefined,
	ports: undefined,
	owner: undefined,
	examples: [],
	workflows: [],
	timings: {},
	log,
	/** Workflows n8n refused to publish: the checks that need them fail saying so. */
	notPublished: {},
};

function readE2eWorkflows() {
	return fs
		.readdirSync(E2E_WORKFLOWS_DIR)
		.filter((file) => file.endsWith('.json'))
		.map((file) => ({
			file,
			...JSON.parse(fs.readFileSync(path.join(E2E_WORKFLOWS_DIR, file), 'utf8')),
		}));
}

/** The credential demo 7's OpenAI Chat Model uses by name, pointed at the fake. */
function fakeOpenAiCredential(url) {
	const data = { apiKey: 'sk-e2e-fake', url, header: false };
	return { id: 'e2eFakeOpenAi', name: 'OpenAI account', type: 'openAiApi', data };
}

/** The SMTP credential of the human review check's Send Email approval, pointed at the fake. */
function fakeSmtpCredential(port) {
	const data = {
		user: '',
		password: '',
		host: '127.0.0.1',
		port,
		secure: false,
		disableStartTls: true,
	};
	return { id: 'e2eFakeSmtp', name: 'SMTP e2e', type: 'smtp', data };
}

async function timed(name, fn) {
	const started = Date.now();
	const result = await fn();
	env.timings[name] = Date.now() - started;
	log(`${name}: ${local.formatDuration(env.timings[name])}`);
	return result;
}

/** Installs n8n unless cached; run.js calls it before registering (n8nFeatures.js reads the install). */
env.install = () =>
	timed('n8n install (cached after the first run)', () =>
		local.ensureN8nInstalled({ log: (m) => log(m) }),
	);

env.setup = async function setup() {
	// Ctrl-C: stop n8n and the emulator before leaving.
	process.once('SIGINT', () => {
		void env.teardown().finally(() => process.exit(130));
	});
	env.emu = await startEmulator({ port: 0, seedDemo: true });
	log(`emulator on ${env.emu.baseUrl}`);
	// The OpenAI Chat Model of demo 7 talks to this fake through its credential's Base URL.
	env.openAi = await startFakeOpenAi();
	// The human review check's approval mails go to this fake.
	env.smtp = await startFakeSmtp();
	const packed = await timed('clean build + npm pack', () => local.buildAndPack());

	fs.mkdirSync(local.LOCAL_DIR, { recursive: true });
	env.userFolder = fs.mkdtempSync(path.join(local.LOCAL_DIR, 'e2e-'));
	const installed = local.installPackageInto(env.userFolder, packed);
	packed.cleanup();
	log(`packed package unpacked into ${path.relative(local.ROOT, installed.target)}`);

	env.ports = { port: await local.freePort(), brokerPort: await local.freePort() };
	env.examples = local.readExamples();
	env.workflows = [...env.examples, ...readE2eWorkflows()];
	const credential = local.botDojoCredential({
		baseUrl: env.emu.baseUrl,
		accountId: env.emu.accountId,
		projectId: env.emu.projectId,
		apiKey: env.emu.keys.project,
	});
	await timed('import credential + workflows (n8n CLI)', () =>
		local.importIntoN8n({
			userFolder: env.userFolder,
			ports: env.ports,
			credentials: [
				credential,
				fakeOpenAiCredential(env.openAi.url),
				fakeSmtpCredential(env.smtp.port),
			],
			workflows: env.workflows,
		}),
	);

	env.n8n = await timed('n8n start until ready', () =>
		local.startN8n({
			userFolder: env.userFolder,
			...env.ports,
			logFile: path.join(env.userFolder, 'n8n.log'),
			extraEnv: scaledDefaultEnv,
			onSpawn: (stop) => (env.stopN8n = stop),
		}),
	);
	log(`n8n ${local.N8N_VERSION} on ${env.n8n.url} (log: ${path.join(env.userFolder, 'n8n.log')})`);
	env.owner = {
		email: 'e2e@example.com',
		firstName: 'End',
		lastName: 'ToEnd',
		password: local.newPassword(),
	};
	env.session = new local.N8nSession(env.n8n.url);
	await env.session.setupOwnerOrLogin(env.owner);
	// One workflow n8n cannot publish (e.g. a node version an older n8n lacks) fails its checks only.
	for (const id of ACTIVATE)
		await local.activateWorkflow(env.session, id).catch((error) => {
			env.notPublished[id] = error.message;
			log(`could not publish ${id}: ${error.message}`);
		});
};

env.teardown = async function teardown() {
	if (env.tornDown) return;
	env.tornDown = true;
	await env.stopN8n?.();
	await env.emu?.close();
	await env.openAi?.close();
	await env.smtp?.close();
	// n8n's log of this run stays beside the screenshots (git-ignored), for when a check failed.
	const n8nLog = env.userFolder && path.join(env.userFolder, 'n8n.log');
	if (n8nLog && fs.existsSync(n8nLog)) {
		fs.mkdirSync(ARTIFACTS_DIR, { recursive: true });
		fs.copyFileSync(n8nLog, path.join(ARTIFACTS_DIR, 'n8n.log'));
	}
	if (env.userFolder && process.env.E2E_KEEP !== '1') local.removeUserFolder(env.userFolder);
	const lines = Object.entries(env.timings).map(([k, ms]) => `  ${k}: ${local.formatDuration(ms)}`);
	log(`timings:\n${lines.join('\n')}`);
};

/** Runs a workflow with `n8n execute --id` next to the running server (see executeWorkflow). */
env.execute = (workflowId) =>
	local.executeWorkflow({ userFolder: env.userFolder, port: env.ports.port }, workflowId);

/** Fails when n8n refused to publish the workflow in setup, with n8n's reason. */
env.assertPublished = function assertPublished(workflowId) {
	assert.equal(env.notPublished[workflowId], undefined, `n8n did not publish ${workflowId}`);
};

/** The emulator requests to one endpoint received since `mark` (an index into emu.requests). */
env.requestsSince = function requestsSince(mark, endpoint) {
	return env.emu.requests.slice(mark).filter((r) => !endpoint || r.endpoint === endpoint);
};

/** Reads a binary that an execution stored on disk (n8n's default filesystem mode). */
env.readBinary = function readBinary(binary) {
	if (binary.data && !binary.id) return Buffer.from(binary.data, 'base64');
	const [, relative] = String(binary.id).split(':');
	const candidates = [
		path.join(env.userFolder, '.n8n', 'storage', relative),
		path.join(env.userFolder, '.n8n', 'binaryData', relative),
	];
	const file = candidates.find((candidate) => fs.existsSync(candidate));
	if (!file) throw new Error(`binary ${binary.id} is in none of ${candidates.join(', ')}`);
	return fs.readFileSync(file);
};

module.exports = env;
