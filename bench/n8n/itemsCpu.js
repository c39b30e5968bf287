'use strict';
/**
 * bench:n8n phase `itemscpu` (issue 25): Run Flow's CPU per item against n8n's own HTTP Request
 * node making the same call, ITEMS items of a 50 ms flow, Run Flow at Concurrency 10. Every
 * measured run has an n8n process of its own (restarted on the same database), warmed up by one
 * call of its workflows; the CPU of the same workflow without the node (Set + Split Out) is
 * measured in that process and taken off. The two variants alternate in order from round to
 * round, and the ratio is taken within each round.
 */
const os = require('node:os');

const { summary, format } = require('./report');

const VARIANTS = {
	'Run Flow, concurrency 10': 'items-c10',
	'HTTP Request (every item at once)': 'items-http',
};
const BASELINE = 'HTTP Request (every item at once)';

/** One measured run in a fresh n8n: the items alone, then the variant, after a warm-up of both. */
async function freshRun(ctx, { key, items, measure, restartN8n, complete }) {
	await restartN8n(ctx);
	await measure(ctx, 'items-only', {});
	await measure(ctx, key, {}, complete);
	const only = await measure(ctx, 'items-only', {});
	const row = await measure(ctx, key, {}, complete);
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
	}
	const base = results[BASELINE];
	const ratio = (rows, key) => summary(rows.map((row, i) => row[key] / base[i][key]));
	const head =
		'| variant | wall ms | n8n CPU ms | CPU ms per item (minus items only) | CPU per item ÷ HTTP Request | wall ÷ HTTP Request |';
	const lines = [
		`### CPU per item: Run Flow vs HTTP Request, ${items} items of a 50 ms flow, a fresh n8n per run`,
		'',
		head,
		'|---|---|---|---|---|---|',
	];
	for (const [name, rows] of Object.entries(results)) {
		const isBase = name === BASELINE;
		lines.push(
			`| ${name} | ${format(summary(rows.map((r) => r.ms)))} | ${format(summary(rows.map((r) => r.cpuMs)))} | ${format(summary(rows.map((r) => r.cpuPerItemMs)), 2)} | ${isBase ? '1' : format(ratio(rows, 'cpuPerItemMs'), 2)} | ${isBase ? '1' : format(ratio(rows, 'ms'), 2)} |`,
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
