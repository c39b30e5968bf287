'use strict';
/**
 * bench:n8n phase `itemscpu` (issue 25): Run Flow's CPU per item against n8n's own HTTP Request
 * node making the same call, ITEMS items of a 50 ms flow, Run Flow at Concurrency 10. Two
 * baselines: the HTTP Request node with the key in a plain Authorization header (stored in the
 * workflow, which n8n advises against), with n8n's generic Header Auth credential (what a user
 * without the package builds), and with the BotDojo API credential as a predefined
 * credential type (n8n signs each request with the credential, as it does Run Flow's). Every
 * measured run has an n8n process of its own (restarted on the same database), warmed up by one
 * call of its workflows; the CPU of the same workflow without the node (Set + Split Out) is
 * measured in that process and taken off. The variants alternate in order from round to round,
 * and the ratios are taken within each round.
 */
const os = require('node:os');

const { summary, format } = require('./report');

const RUN_FLOW = 'Run Flow, concurrency 10';
const PLAIN = 'HTTP Request, key in a header parameter (every item at once)';
const CREDENTIAL = 'HTTP Request, BotDojo API credential (every item at once)';
const HEADER_AUTH = 'HTTP Request, generic Header Auth credential (every item at once)';
const VARIANTS = {
	[RUN_FLOW]: 'items-c10',
	[PLAIN]: 'items-http',
	[CREDENTIAL]: 'items-http-cred',
	[HEADER_AUTH]: 'items-http-header',
};
/** Each baseline and the column that divides by it. */
const BASELINES = {
	[PLAIN]: 'HTTP Request, header',
	[CREDENTIAL]: 'HTTP Request, credential',
	[HEADER_AUTH]: 'HTTP Request, Header Auth',
};

/** One measured run in a fresh n8n: the items alone, then the variant, after a warm-up of both. */
async function freshRun(ctx, { key, items, measure, restartN8n, complete }) {
	await restartN8n(ctx);
	// No heap sampler: its polls cost n8n CPU per second of wall time, and Run Flow (10 at
	// once) takes longer than HTTP Request (all at once), so it would pay more of them.
	const call = (workflow, check) => measure(ctx, workflow, {}, check, { heap: false });
	await call('items-only');
	await call(key, complete);
	const only = await call('items-only');
	const row = await call(key, complete);
	row.cpuPerItemMs = (row.cpuMs - only.cpuMs) / items;
	row.onlyCpuMs = only.cpuMs;
	row.load = os.loadavg()[0];
	return row;
}

async function itemsCpuPhase(ctx, { items, rounds, measure, restartN8n, log }) {
	const complete = (result) => {
		if (result.json?.status !== 'complete') throw new Error(`run not complete: ${result.raw}`);
	};
	const results = Object.fromEntries(Object.keys(VARIANTS).map((name) => [name, []]));
	for (let round = 1; round <= rounds; round++) {
		const order = Object.keys(VARIANTS);
		if (round % 2 === 0) order.reverse();
		for (const name of order) {
			const row = await freshRun(ctx, {
				key: VARIANTS[name],
				items,
				measure,
				restartN8n,
				complete,
			}).catch((error) => ({
				failed: error.message,
				ms: NaN,
				cpuMs: NaN,
				cpuPerItemMs: NaN,
				load: NaN,
			}));
			results[name].push(row);
			if (row.failed) {
				log(`itemscpu round ${round} ${name}: FAILED ${row.failed}`);
				continue;
			}
			log(
				`itemscpu round ${round} ${name}: ${row.ms.toFixed(0)} ms, CPU ${row.cpuMs} ms (items only ${row.onlyCpuMs}), ${row.cpuPerItemMs.toFixed(2)} ms per item, load ${row.load.toFixed(1)}`,
			);
		}
		const perItem = (name) => results[name][round - 1].cpuPerItemMs;
		const roundRatios = Object.entries(BASELINES).map(
			([base, label]) => `÷ ${label} ${(perItem(RUN_FLOW) / perItem(base)).toFixed(2)}`,
		);
		log(`itemscpu round ${round} Run Flow CPU per item ${roundRatios.join(', ')}`);
	}
	const ratio = (rows, base, key) =>
		summary(rows.map((row, i) => row[key] / results[base][i][key]));
	const baseNames = Object.keys(BASELINES);
	const head = [
		'variant',
		'wall ms',
		'n8n CPU ms',
		'CPU ms per item (minus items only)',
		...baseNames.map((base) => `CPU per item ÷ ${BASELINES[base]}`),
		`wall ÷ ${BASELINES[PLAIN]}`,
	];
	const lines = [
		`### CPU per item: Run Flow vs HTTP Request, ${items} items of a 50 ms flow, a fresh n8n per run`,
		'',
		`| ${head.join(' | ')} |`,
		`|${head.map(() => '---').join('|')}|`,
	];
	for (const [name, rows] of Object.entries(results)) {
		const of = (base, key, digits) =>
			name === base ? '1' : format(ratio(rows, base, key), digits);
		lines.push(
			`| ${[
				name,
				format(summary(rows.map((r) => r.ms))),
				format(summary(rows.map((r) => r.cpuMs))),
				format(summary(rows.map((r) => r.cpuPerItemMs)), 2),
				...baseNames.map((base) => of(base, 'cpuPerItemMs', 2)),
				of(PLAIN, 'ms', 2),
			].join(' | ')} |`,
		);
	}
	const loads = summary(
		Object.values(results)
			.flat()
			.map((row) => row.load),
	);
	lines.push(
		'',
		`Load average (1 min) during the runs: ${format(loads, 1)} on ${os.cpus().length} cores.`,
	);
	return lines.join('\n');
}

module.exports = { itemsCpuPhase };
