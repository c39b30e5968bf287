'use strict';
/**
 * bench:n8n phase `exportfile` (issue 21 §1): Export Requests › CSV File against Items in the
 * real n8n, under the heap cap the run started n8n with.
 */
const fs = require('node:fs');

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

/**
 * Export to a CSV file (issue 21 §1) of `records` records under the heap cap, with Items
 * exports of `itemsLimits` records beside it, the largest last: an Items export that n8n cannot
 * hold ends the n8n process (its heap runs out), which is the finding; n8n is not restarted.
 */
async function exportFilePhase(
	ctx,
	{ emu, logFile, measure, alternate, records, itemsLimits, heapMb },
) {
	await emu.reset();
	await emu.seed('flow_echo', Math.max(records, ...itemsLimits));
	const run = (key, check) => async () => {
		const row = await measure(ctx, key, {}, check, { reset: false });
		row.alive = await alive(ctx);
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
	const results = await alternate('exportfile', 1, variants);
	const exited = await Promise.race([ctx.n8n.exited, sleep(1000).then(() => null)]);
	const logText = fs.readFileSync(logFile, 'utf8');
	const notes = {};
	for (const [name, rows] of Object.entries(results))
		notes[name] = rows[0].failed ? 'failed' : `n8n alive after: ${rows[0].alive ? 'yes' : 'NO'}`;
	const ending = exited
		? `n8n exited (code ${exited.code}, signal ${exited.signal})${/heap out of memory/i.test(logText) ? ': "JavaScript heap out of memory" in its log' : ''}.`
		: `n8n alive at the end: ${(await alive(ctx)) ? 'yes' : 'NO'}.`;
	return `${table(
		`Export under --max-old-space-size=${heapMb || 'default'}: CSV File vs Items`,
		results,
		{
			baseline: Object.keys(variants)[0],
			figures: ['ms', 'cpuMs', 'heapMB', 'rssMB'],
			notes,
		},
	)}\n\n${ending}`;
}

module.exports = { exportFilePhase };
