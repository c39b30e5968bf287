#!/usr/bin/env node
/**
 * Folders are layers and imports point down them: a file may import its own layer or a lower
 * one, never a higher one. Prints every import with its layers; exits 1 on one that points up.
 *
 *   5 node        nodes/<Node>/<Node>.node.ts
 *   4 operation   nodes/<Node>/actions/
 *   3 helpers     nodes/<Node>/helpers/ (the node's own machinery)
 *   2 kits        nodes/shared/params/, nodes/shared/*.ts (execution.ts, validation.ts, itemErrors.ts)
 *   1 transport   nodes/shared/transport/, nodes/shared/binary/ (the only code that knows BotDojo)
 *   0 credential  credentials/ (its fields and the rules on them; imports nothing of the nodes)
 */
const fs = require('fs');
const path = require('path');

const root = path.resolve(__dirname, '..');
const LAYERS = ['credential', 'transport', 'kits', 'helpers', 'operation', 'node'];

function layerOf(file) {
	const rel = path.relative(root, file).split(path.sep).join('/');
	if (rel.startsWith('credentials/')) return 0;
	if (/^nodes\/shared\/(transport|binary)\//.test(rel)) return 1;
	if (/^nodes\/shared\//.test(rel)) return 2;
	if (/^nodes\/[^/]+\/[^/]+\.node\.ts$/.test(rel)) return 5;
	if (/^nodes\/[^/]+\/actions\//.test(rel)) return 4;
	if (/^nodes\/[^/]+\/helpers\//.test(rel)) return 3;
	return undefined;
}

function sourceFiles(dir) {
	return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
		const full = path.join(dir, entry.name);
		if (entry.isDirectory()) return sourceFiles(full);
		return entry.name.endsWith('.ts') ? [full] : [];
	});
}

const problems = [];
const lines = [];
const files = [
	...sourceFiles(path.join(root, 'nodes')),
	...sourceFiles(path.join(root, 'credentials')),
];
for (const file of files) {
	const from = layerOf(file);
	const rel = path.relative(root, file);
	if (from === undefined) {
		problems.push(`${rel}: in no layer (move it into actions/, helpers/ or shared/)`);
		continue;
	}
	const text = fs.readFileSync(file, 'utf8');
	for (const match of text.matchAll(/(?:import|export)[^'";]*?from\s+'(\.[^']+)'/g)) {
		const target = path.resolve(path.dirname(file), match[1]) + '.ts';
		const to = layerOf(target);
		const line = `${rel} (${LAYERS[from]}) → ${path.relative(root, target)} (${LAYERS[to] ?? '?'})`;
		lines.push(line);
		if (to === undefined || to > from) problems.push(`points up: ${line}`);
	}
}

if (process.argv.includes('--verbose')) console.log(lines.join('\n'));
if (problems.length > 0) {
	console.error(problems.join('\n'));
	console.error(`\n${problems.length} import(s) against the layers (see scripts/check-layers.js)`);
	process.exit(1);
}
console.log(`layers: ${lines.length} imports in ${files.length} files, none points up`);
