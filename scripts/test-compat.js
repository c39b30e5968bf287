'use strict';
/**
 * `npm run test:compat [-- <n8n version>…]`: the end-to-end suite (npm run test:e2e) against
 * n8n versions, by default the floor (package.json `engines.n8n`) and the newest 2.x that installs
 * here (NEWEST_INSTALLABLE). Each version is installed once into `.n8n-local/n8n-<version>/`
 * (about 5–8 minutes and 3 GB), then the suite runs with BOTDOJO_N8N_VERSION set. One version
 * after the other; the exit code is 1 if any failed. Results are appended to
 * `.n8n-local/compat-results.json` for docs/compatibility.md.
 */
const fs = require('node:fs');
const path = require('node:path');
const { spawn } = require('node:child_process');

const ROOT = path.resolve(__dirname, '..');
const RESULTS = path.join(ROOT, '.n8n-local', 'compat-results.json');
// n8n 2.41.2 and later need an n8n-core the registry here does not serve.
const NEWEST_INSTALLABLE = '2.41.1';
const FLOOR = require('../package.json').engines.n8n.replace(/^>=\s*/, '');

function run(command, args, env) {
	return new Promise((resolve) => {
		const child = spawn(command, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
		let output = '';
		for (const stream of [child.stdout, child.stderr])
			stream.on('data', (chunk) => {
				output += chunk;
				process.stdout.write(chunk);
			});
		child.on('exit', (code, signal) => resolve({ code, signal, output }));
	});
}

/**
 * node:test's spec reporter ends with "ℹ pass N" / "ℹ fail N" lines; the suite prints the checks
 * that do not apply to this n8n (not registered: test/e2e/n8nFeatures.js) in one line.
 */
function counts(output) {
	const read = (name) => Number(new RegExp(`ℹ ${name} (\\d+)`).exec(output)?.[1] ?? NaN);
	const notApplicable = /not applicable on n8n \S+: (\d+) checks: (.*)$/m.exec(output);
	return {
		tests: read('tests'),
		pass: read('pass'),
		fail: read('fail'),
		skipped: read('skipped'),
		notApplicable: Number(notApplicable?.[1] ?? 0),
		notApplicableWhy: notApplicable?.[2],
	};
}

async function testVersion(version) {
	const env = { ...process.env, BOTDOJO_N8N_VERSION: version };
	console.log(`\n== n8n ${version}: install (cached after the first time)`);
	const install = await run(
		process.execPath,
		[
			'-e',
			"require('./scripts/lib/install-n8n').ensureN8nInstalled().catch((e) => { console.error(e.message); process.exit(1); })",
		],
		env,
	);
	if (install.code !== 0)
		return {
			version,
			result: 'install failed',
			detail: install.output.trim().split('\n').slice(-6).join('\n'),
		};
	console.log(`\n== n8n ${version}: end-to-end suite`);
	const e2e = await run(process.execPath, ['--test-reporter=spec', 'test/e2e/run.js'], env);
	// The spec reporter's own summary heading ("✖ failing tests:") is no check.
	const failed = [...e2e.output.matchAll(/^\s*✖ (.+?)(?: \(\d[\d.]*m?s\))?$/gm)]
		.map((m) => m[1])
		.filter((name) => name !== 'failing tests:');
	return {
		version,
		result: e2e.code === 0 ? 'passed' : 'failed',
		...counts(e2e.output),
		failed: [...new Set(failed)],
	};
}

async function main() {
	const given = process.argv.slice(2);
	const versions = given.length ? given : [FLOOR, NEWEST_INSTALLABLE];
	console.log(
		`n8n versions: ${versions.join(', ')}${given.length ? '' : ' (the floor and the newest)'}`,
	);
	const results = [];
	for (const version of versions) {
		const result = { ...(await testVersion(version)), date: new Date().toISOString().slice(0, 10) };
		results.push(result);
		const all = fs.existsSync(RESULTS) ? JSON.parse(fs.readFileSync(RESULTS, 'utf8')) : [];
		fs.mkdirSync(path.dirname(RESULTS), { recursive: true });
		fs.writeFileSync(RESULTS, JSON.stringify([...all, result], null, 2));
	}
	console.log('\n== compatibility');
	for (const r of results)
		console.log(
			`n8n ${r.version}: ${r.result}` +
				(Number.isNaN(r.tests ?? NaN)
					? ''
					: ` (${r.pass}/${r.tests} passed, ${r.fail} failed, ${r.notApplicable} not applicable)`) +
				(r.failed?.length ? `\n  failed: ${r.failed.join('\n          ')}` : '') +
				(r.notApplicableWhy ? `\n  not applicable: ${r.notApplicableWhy}` : '') +
				(r.detail ? `\n  ${r.detail.replace(/\n/g, '\n  ')}` : ''),
		);
	process.exit(results.every((r) => r.result === 'passed') ? 0 : 1);
}

void main();
