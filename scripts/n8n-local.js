'use strict';
/**
 * Shared helpers of `npm start` and the end-to-end suite: a cached real n8n, our packed package in
 * its community package folder, imported credentials and workflows, the server, the owner account.
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const install = require('./lib/install-n8n');
const {
	executeWorkflow,
	freePort,
	linkStaticCache,
	removeUserFolder,
	runN8nCli,
	startN8n,
} = require('./lib/n8n-process');
const {
	buildAndPack,
	installPackageInto,
	nodeTypeNames,
	PACKAGE,
} = require('./lib/community-package');
const { N8nSession, newPassword } = require('./lib/n8n-rest');

const EXAMPLES_DIR = path.join(install.ROOT, 'examples');
const CREDENTIAL_NAME = 'BotDojo account';
const CREDENTIAL_ID = 'botdojoDemoCred1';

/** The demo workflows of examples/, parsed, in file-name order. */
function readExamples() {
	return fs
		.readdirSync(EXAMPLES_DIR)
		.filter((file) => file.endsWith('.json'))
		.sort()
		.map((file) => ({
			file,
			...JSON.parse(fs.readFileSync(path.join(EXAMPLES_DIR, file), 'utf8')),
		}));
}

/** The `botDojoApi` credential to import: the emulator's, or the real service's from the environment. */
function botDojoCredential(
	{ baseUrl, accountId, projectId, apiKey },
	{ id = CREDENTIAL_ID, name = CREDENTIAL_NAME } = {},
) {
	return { id, name, type: 'botDojoApi', data: { baseUrl, accountId, projectId, apiKey } };
}

/** Writes JSON to a private temporary folder, calls fn(path), and removes it (credentials hold keys). */
async function withTempJson(fileName, value, fn) {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'botdojo-import-'));
	try {
		const file = path.join(dir, fileName);
		fs.writeFileSync(file, JSON.stringify(value, null, 2), { mode: 0o600 });
		return await fn(file, dir);
	} finally {
		fs.rmSync(dir, { recursive: true, force: true });
	}
}

/**
 * Imports credentials and workflows with n8n's CLI (n8n must not be running on this folder).
 * Workflows keep their `id`, so an import replaces the earlier copy.
 */
async function importIntoN8n({ userFolder, ports, credentials, workflows }) {
	const cli = { userFolder, port: ports.port, brokerPort: ports.brokerPort };
	if (credentials.length)
		await withTempJson('credentials.json', credentials, (file) =>
			runN8nCli(['import:credentials', `--input=${file}`], cli),
		);
	if (workflows.length)
		await withTempJson('workflows.json', workflows.map(stripFileName), (file) =>
			runN8nCli(['import:workflow', `--input=${file}`], cli),
		);
}

function stripFileName({ file: _file, ...workflow }) {
	return workflow;
}

/** Activates (publishes) a workflow through the REST API, so its webhooks and polls are live. */
async function activateWorkflow(session, workflowId) {
	const { data } = await session.request('GET', `/rest/workflows/${workflowId}`);
	const published = await session.request(
		'POST',
		`/rest/workflows/${workflowId}/activate`,
		{ versionId: data.versionId },
		{ expectOk: false },
	);
	if (published.status >= 400)
		throw new Error(`publishing ${workflowId} answered ${published.status}: ${published.text}`);
}

module.exports = {
	...install,
	PACKAGE,
	EXAMPLES_DIR,
	CREDENTIAL_ID,
	CREDENTIAL_NAME,
	N8nSession,
	newPassword,
	executeWorkflow,
	freePort,
	linkStaticCache,
	removeUserFolder,
	runN8nCli,
	startN8n,
	buildAndPack,
	installPackageInto,
	nodeTypeNames,
	readExamples,
	botDojoCredential,
	importIntoN8n,
	activateWorkflow,
};
