'use strict';
/**
 * Which demo workflows `npm start` imports. n8n autosaves drafts, so a demo in n8n may hold the
 * user's edits: only demos that are missing, or still exactly as `npm start` last imported them,
 * are (re-)imported; edited ones are kept and named at start. What was imported is remembered in
 * `<user folder>/demos.json` as a fingerprint of the workflow as n8n stored it.
 */
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const { runN8nCli } = require('./n8n-process');

/** JSON with sorted keys, so that two copies of one workflow give one string. */
function stableJson(value) {
	if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
	if (value && typeof value === 'object')
		return `{${Object.keys(value)
			.sort()
			.filter((key) => value[key] !== undefined)
			.map((key) => `${JSON.stringify(key)}:${stableJson(value[key])}`)
			.join(',')}}`;
	return JSON.stringify(value);
}

/** What a user edits: name, nodes and connections (not ids, versions, activation or static data). */
function fingerprint(workflow) {
	const nodes = [...(workflow.nodes ?? [])]
		.map(({ name, type, typeVersion, parameters, position, disabled, credentials }) => ({
			name,
			type,
			typeVersion,
			parameters,
			position,
			disabled,
			credentials: credentials
				? Object.fromEntries(Object.entries(credentials).map(([k, c]) => [k, c?.name]))
				: undefined,
		}))
		.sort((a, b) => a.name.localeCompare(b.name));
	const content = stableJson({ name: workflow.name, nodes, connections: workflow.connections });
	return crypto.createHash('sha256').update(content).digest('hex');
}

/** Every workflow of the user folder, read with n8n's CLI (n8n must not be running on it). */
async function exportAllWorkflows(cli) {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'botdojo-export-'));
	try {
		const file = path.join(dir, 'workflows.json');
		try {
			await runN8nCli(['export:workflow', '--all', `--output=${file}`], cli);
		} catch (error) {
			if (/No workflows found/i.test(error.message)) return [];
			throw error;
		}
		return fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : [];
	} finally {
		fs.rmSync(dir, { recursive: true, force: true });
	}
}

function recordFile(userFolder) {
	return path.join(userFolder, 'demos.json');
}

function readRecord(userFolder) {
	try {
		return JSON.parse(fs.readFileSync(recordFile(userFolder), 'utf8'));
	} catch {
		return {};
	}
}

/**
 * Splits the demos into those to import (missing, or unchanged since the last import) and those
 * to keep (edited in n8n, or present from before this record existed), and names those the user
 * had published: the import unpublishes them (n8n 2.x import:workflow), `npm start` publishes
 * them again.
 */
async function planDemoImport({ userFolder, cli, examples }) {
	const hasDatabase = fs.existsSync(path.join(userFolder, '.n8n', 'database.sqlite'));
	const existing = hasDatabase ? await exportAllWorkflows(cli) : [];
	const byId = new Map(existing.map((workflow) => [workflow.id, workflow]));
	const record = readRecord(userFolder);
	const toImport = [];
	const kept = [];
	const published = [];
	for (const example of examples) {
		const current = byId.get(example.id);
		// n8n 2.x marks a published workflow by its activeVersionId; n8n 1.x by `active`.
		if (current?.activeVersionId || current?.active) published.push(example.id);
		if (!current || record[example.id]?.fingerprint === fingerprint(current))
			toImport.push(example);
		else kept.push({ example, current });
	}
	return { toImport, kept, published };
}

/** Remembers the imported demos as n8n stored them (read through the REST API once n8n runs). */
async function rememberImported({ userFolder, session, imported }) {
	const record = readRecord(userFolder);
	for (const example of imported) {
		const { data } = await session.request('GET', `/rest/workflows/${example.id}`);
		record[example.id] = { fingerprint: fingerprint(data), importedAt: new Date().toISOString() };
	}
	fs.writeFileSync(recordFile(userFolder), JSON.stringify(record, null, 2));
}

// The address the example files' notes give: npm start's default.
const DEFAULT_URL = 'http://127.0.0.1:5678';

/** A demo whose sticky notes give `url` (the n8n it is imported into) instead of the default. */
function atAddress(example, url) {
	const note = (node) =>
		node.type === 'n8n-nodes-base.stickyNote'
			? {
					...node,
					parameters: {
						...node.parameters,
						content: node.parameters.content.replaceAll(DEFAULT_URL, url),
					},
				}
			: node;
	return { ...example, nodes: example.nodes.map(note) };
}

/**
 * n8n's workflow list shows the last updated first, and the import and set-up touch the demos in
 * no useful order. An empty update (no new version: n8n 2.x saves one only for changed nodes or
 * connections) sets a demo's updatedAt: done from the last demo to the first, demo 1 leads.
 */
async function listInDemoOrder(session, examples) {
	for (const { id } of [...examples].reverse())
		await session.request('PATCH', `/rest/workflows/${id}`, {});
}

module.exports = {
	DEFAULT_URL,
	atAddress,
	fingerprint,
	exportAllWorkflows,
	listInDemoOrder,
	planDemoImport,
	rememberImported,
};
