'use strict';
/**
 * bench:n8n phase `exportfile` (issue 21 §1): Export Requests › CSV File against Items in the
 * real n8n, under the heap cap the run started n8n with.
 */
const fs = require('node:fs');
const os = require('node:os');

const { table } = require('./report');

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Whether n8n still answers its health check. */
async function alive(ctx) {
	try {
		return (await fetch(`${ctx.n8n.url}/healthz`, { signal: AbortSignal.timeout(10_000) })).ok;
	} catch {
		return false;
	}
}

const mb = (bytes) => `${(bytes / 1e6).toFixed(0)} MB`;
const signed = (bytes) => `${bytes < 0 ? '-' : '+'}${mb(Math.abs(bytes))}`;

/**
 * Each process of n8n's tree in a measured run: RSS at the reset, growth to its peak (VmHWM), to
 * the largest 100 ms sample and to the end, so the main process can be read apart from the runner.
 */
function processLines(name, row) {
	if (!row.processes) return [];
	return row.processes.map((p, i) => {
		const base = p.before ?? 0;
		const born = p.before === undefined ? ', born during the run' : '';
		return `- ${name}, ${i === 0 ? 'main' : 'child'} pid ${p.pid} (\`${p.command}\`${born}): RSS ${mb(base)} at the start, peak ${signed(p.peak - base)}, sampled max ${signed(p.sampledMax - base)}, end ${signed(p.end - base)}`;
	});
}

/**
 * Export to a CSV file (issue 21 §1) of `records` records under the heap cap, with Items
 * exports of `itemsLimits` records beside it, the largest last: an Items export that n8n cannot
 * hold ends the n8n process (its heap runs out), which is the finding; n8n is not restarted.
 * `rounds` repeats them in the same n8n: the first run in a fresh n8n grows its heap from the size
 * n8n shrank it to while idle, later ones reuse memory the first one mapped.
 */
async function exportFilePhase(
	ctx,
	{ emu, logFile, log, measure, alternate, records, rounds, itemsLimits, heapMb },
) {
	await emu.reset();
	await emu.seed('flow_echo', Math.max(records, ...itemsLimits));
	const load = [os.loadavg()[0]];
	const run = (key, check) => async () => {
		const row = await measure(ctx, key, {}, check, { reset: false });
		row.alive = await alive(ctx);
		log(
			`exportfile ${key}: RSS growth of n8n's main process: peak +${row.rssMainMB.toFixed(0)} MB, sampled +${row.rssMainSampledMB.toFixed(0)} MB, end +${row.rssMainEndMB.toFixed(0)} MB; tree sampled +${row.rssSampledMB.toFixed(0)} MB`,
		);
		return row;
	};
	const variants = {
		[`CSV File, ${records.toLocaleString('en')} records`]: run('export-csv', (result) => {
			if (result.json?.records !== records)
				throw new Error(`CSV File: ${result.raw ?? JSON.stringify(result.json)}`);
		}),
	};
	for (const limit of itemsLimits)
		variants[`Items, ${limit.toLocaleString('en')} records`] = run(
			`export-items-${limit}`,
			(result) => {
				if (!result.json?.id) throw new Error(`Items ${limit}: no record in the answer`);
			},
		);
	const results = await alternate('exportfile', rounds, variants);
	load.push(os.loadavg()[0]);
	const exited = await Promise.race([ctx.n8n.exited, sleep(1000).then(() => null)]);
	const logText = fs.readFileSync(logFile, 'utf8');
	const notes = {};
	for (const [name, rows] of Object.entries(results))
		notes[name] =
			`n8n alive after: ${rows.map((r) => (r.failed ? 'failed' : r.alive ? 'yes' : 'NO')).join(', ')}`;
	const ending = exited
		? `n8n exited (code ${exited.code}, signal ${exited.signal})${/heap out of memory/i.test(logText) ? ': "JavaScript heap out of memory" in its log' : ''}.`
		: `n8n alive at the end: ${(await alive(ctx)) ? 'yes' : 'NO'}.`;
	return `${table(
		`Export under --max-old-space-size=${heapMb || 'default'}: CSV File vs Items`,
		results,
		{
			baseline: Object.keys(variants)[0],
			figures: [
				'ms',
				'cpuMs',
				'heapMB',
				'rssMB',
				'rssMainMB',
				'rssSampledMB',
				'rssMainSampledMB',
				'rssMainEndMB',
			],
			notes,
		},
	)}\n\n${ending} Load average (1 min) ${load.map((l) => l.toFixed(2)).join(' → ')}.\n\n${Object.entries(
		results,
	)
		.flatMap(([name, rows]) =>
			rows.flatMap((row, i) => processLines(`${name}, round ${i + 1}`, row)),
		)
		.join('\n')}`;
}

module.exports = { exportFilePhase };
