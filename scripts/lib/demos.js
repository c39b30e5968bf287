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
 * to keep (edited in n8n, or present from before this record existed).
 */
async function planDemoImport({ userFolder, cli, examples }) {
	const hasDatabase = fs.existsSync(path.join(userFolder, '.n8n', 'database.sqlite'));
	const existing = hasDatabase ? await exportAllWorkflows(cli) : [];
	const byId = new Map(existing.map((workflow) => [workflow.id, workflow]));
	const record = readRecord(userFolder);
	const toImport = [];
	const kept = [];
	for (const example of examples) {
		const current = byId.get(example.id);
		if (!current || record[example.id]?.fingerprint === fingerprint(current))
			toImport.push(example);
		else kept.push({ example, current });
	}
	return { toImport, kept };
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

module.exports = { fingerprint, exportAllWorkflows, planDemoImport, rememberImported };
