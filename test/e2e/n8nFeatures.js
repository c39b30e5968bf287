'use strict';
/**
 * Which checks apply to the n8n under test (npm run test:compat runs the suite on the floor too).
 * A check of a feature only newer n8n has registers only where the installed n8n has it: decided
 * by a feature test on the installed packages (node types with their versions, n8n's modules), or
 * by n8n's version where the feature is inside n8n-core. The checks that did not apply are printed
 * in one line with the reason, and counted, instead of being skipped.
 */
const fs = require('node:fs');
const path = require('node:path');
const { test } = require('node:test');

const local = require('../../scripts/n8n-local');

const MODULES_DIR = path.join(local.INSTALL_DIR, 'node_modules');
const NODE_TYPE_LISTS = [
	['n8n-nodes-base', 'n8n-nodes-base/dist/types/nodes.json'],
	['@n8n/n8n-nodes-langchain', '@n8n/n8n-nodes-langchain/dist/types/nodes.json'],
];

/** Node type name → the versions the installed n8n has (read once, from its packages' lists). */
let nodeVersions;
function installedNodeVersions() {
	if (nodeVersions) return nodeVersions;
	nodeVersions = new Map();
	// A versioned node is listed once per implementation, each with its versions.
	for (const [packageName, list] of NODE_TYPE_LISTS)
		for (const type of JSON.parse(fs.readFileSync(path.join(MODULES_DIR, list), 'utf8'))) {
			const name = `${packageName}.${type.name}`;
			nodeVersions.set(name, [...(nodeVersions.get(name) ?? []), ...[type.version].flat()]);
		}
	return nodeVersions;
}

// n8n makes a "…HitlTool" (human review for tool calls) of every node with a Send and Wait
// operation as it loads them (n8n 2.x): in no list, its versions are its base node's.
const HITL_TOOLS = path.join(MODULES_DIR, 'n8n/dist/tool-generation/hitl-tools.js');

/** The versions of a node type the installed n8n has. */
function installedVersions(type) {
	const base = type.replace(/HitlTool$/, '');
	if (base !== type && !fs.existsSync(HITL_TOOLS)) return undefined;
	return installedNodeVersions().get(base);
}


/**
 * Why a workflow cannot run on the installed n8n (a node type or version it lacks), or
 * undefined when it can. Our own nodes are always there.
 */
function workflowMissing(workflow) {
	const missing = workflow.nodes
		.filter((n) => !n.type.startsWith(`${local.PACKAGE.name}.`))
		.filter((n) => !installedVersions(n.type)?.includes(n.typeVersion))
		.map((n) => `${n.type.split('.').pop()} ${n.typeVersion}`);
	return missing.length ? `needs ${[...new Set(missing)].join(', ')}` : undefined;
}

/** workflowMissing of a demo (examples/) or of one of the suite's workflows, by its id. */
function workflowMissingById(id) {
	const suiteDir = path.join(__dirname, 'workflows');
	const suite = fs
		.readdirSync(suiteDir)
		.filter((file) => file.endsWith('.json'))
		.map((file) => JSON.parse(fs.readFileSync(path.join(suiteDir, file), 'utf8')));
	const workflow = [...local.readExamples(), ...suite].find((w) => w.id === id);
	if (!workflow) throw new Error(`no workflow ${id} in examples/ or test/e2e/workflows/`);
	return workflowMissing(workflow);
}

/**
 * n8n's Chat Hub as n8n 2.x ships it: an owner turns it on (PUT /rest/chat/enabled, in its
 * settings controller); an n8n without that switch cannot run these checks.
 */
function chatHubMissing() {
	const controller = path.join(
		MODULES_DIR,
		'n8n/dist/modules/chat-hub/chat-hub.settings.controller.js',
	);
	const source = fs.existsSync(controller) ? fs.readFileSync(controller, 'utf8') : '';
	return source.includes("Put)('/enabled')")
		? undefined
		: 'needs Chat Hub with its on/off setting (n8n 2.x)';
}

const notApplicable = [];

/** Registers the check(s) when `missing` is undefined; otherwise lists `names` as not applicable. */
function registerWhere(missing, names, register) {
	if (!missing) return register();
	for (const name of [names].flat()) notApplicable.push({ name, missing });
}

/** node:test's `test`, registering only when `missing` is undefined (as registerWhere). */
function testWhere(missing) {
	return (name, options, fn) => registerWhere(missing, name, () => test(name, options, fn));
}

/** The one line naming the checks that did not apply, and why (read by scripts/test-compat.js). */
function reportNotApplicable(log) {
	if (!notApplicable.length) return;
	const byReason = new Map();
	for (const { name, missing } of notApplicable)
		byReason.set(missing, [...(byReason.get(missing) ?? []), name]);
	const reasons = [...byReason].map(([missing, names]) => `${names.join('; ')} (${missing})`);
	log(
		`not applicable on n8n ${local.N8N_VERSION}: ${notApplicable.length} checks: ${reasons.join(' | ')}`,
	);
}

module.exports = {
	workflowMissing,
	workflowMissingById,
	chatHubMissing,
	registerWhere,
	testWhere,
	reportNotApplicable,
};
