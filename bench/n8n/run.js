'use strict';
/**
 * `npm run bench:n8n`: BotDojo nodes against what a user builds with n8n's own nodes, in the real
 * n8n that `npm start` installs, over one BotDojo emulator in its own process. Every workflow is
 * started by a production webhook, so it runs in the n8n server, whose CPU (with its task runner)
 * and peak RSS are read from /proc around each call. Variants alternate within each round.
 *
 * Environment: BENCH_ROUNDS (5), BENCH_SMALL_TOKENS (50000), BENCH_LARGE_TOKENS (1000000; 0 skips),
 * BENCH_LARGE_ROUNDS (BENCH_ROUNDS), BENCH_EXPORT_RECORDS (20000), BENCH_LARGE_MAX_LINE_MIB (0:
 * Run Flow's Max Line Size at 1M tokens; 0 keeps the default), BENCH_ONLY (tokens,large,stream,
 * export, items, remember, itemscpu, exportfile: comma-separated phases; exportfile is not in
 * the default list; itemscpu restarts n8n for each measured run), BENCH_ITEMS (200),
 * BENCH_REMEMBER_KEYS (10000), BENCH_FILE_RECORDS (1000000: the CSV File export of the exportfile
 * phase), BENCH_FILE_ITEMS (100000,300000: the Items exports beside it; empty: none),
 * BENCH_FILE_ROUNDS (1: rounds of the exportfile phase, all in the same n8n),
 * BENCH_HEAP_MB (1024 when the exportfile phase runs, else none: n8n's --max-old-space-size),
 * BENCH_NODE_OPTIONS (more Node options for n8n, e.g. --cpu-prof --cpu-prof-dir=/tmp/prof).
 */
const path = require('node:path');

const local = require('../../scripts/n8n-local');
const { startBenchServer, stopBenchServer, restartN8n } = require('./server');
const { measure } = require('./measure');
const { table } = require('./report');
const { exportFilePhase } = require('./exportFile');
const { itemsCpuPhase } = require('./itemsCpu');

const env = (name, fallback) =>
	process.env[name] === undefined ? fallback : Number(process.env[name]);
const ROUNDS = env('BENCH_ROUNDS', 5);
const SMALL = env('BENCH_SMALL_TOKENS', 50_000);
const LARGE = env('BENCH_LARGE_TOKENS', 1_000_000);
const LARGE_ROUNDS = env('BENCH_LARGE_ROUNDS', ROUNDS);
const RECORDS = env('BENCH_EXPORT_RECORDS', 20_000);
const MAX_LINE_MIB = env('BENCH_LARGE_MAX_LINE_MIB', 0);
const ITEMS = env('BENCH_ITEMS', 200);
const REMEMBER_KEYS = env('BENCH_REMEMBER_KEYS', 10_000);
const ONLY = (process.env.BENCH_ONLY || 'tokens,large,stream,export,items,remember,itemscpu').split(
	',',
);
const FILE_RECORDS = env('BENCH_FILE_RECORDS', 1_000_000);
const FILE_ROUNDS = env('BENCH_FILE_ROUNDS', 1);
const FILE_ITEMS = (process.env.BENCH_FILE_ITEMS ?? '100000,300000')
	.split(',')
	.filter(Boolean)
	.map(Number);
const HEAP_MB = env('BENCH_HEAP_MB', ONLY.includes('exportfile') ? 1024 : 0);
const TOKEN_CHARS = 10; // flow_big's tokens are like "tok000123 "

const log = (message) => console.error(`[bench:n8n] ${message}`);

const textOf = (tokens) => (result) => {
	const length = (result.json?.text ?? result.text)?.length;
	if (length !== tokens * TOKEN_CHARS)
		throw new Error(`expected ${tokens * TOKEN_CHARS} characters of text, got ${length}`);
};

/** Alternates the variants (A, B, …, A, B, …) for `rounds` rounds. */
async function alternate(title, rounds, variants) {
	const results = Object.fromEntries(Object.keys(variants).map((name) => [name, []]));
	for (let round = 1; round <= rounds; round++) {
		for (const [name, run] of Object.entries(variants)) {
			// A failed call (e.g. the task runner giving up) is a finding: counted, not fatal.
			const row = await run().catch((error) => ({ failed: error.message }));
			results[name].push(row);
			if (row.failed) {
				log(`${title} round ${round} ${name}: FAILED ${row.failed}`);
				continue;
			}
			log(
				`${title} round ${round} ${name}: ${row.ms.toFixed(0)} ms, CPU ${row.cpuMs} ms, RSS +${row.rssMB.toFixed(0)} MB, heap +${row.heapMB.toFixed(0)} MB`,
			);
		}
	}
	return results;
}

async function tokenPhase(ctx, size, tokens, rounds) {
	// At 1M tokens each measured run gets a fresh n8n, warmed by the small run of the same
	// variant: in a warm n8n the heap the first run grew flatters the runs after it.
	const run = (variant) => async () => {
		if (size === 'large') {
			await restartN8n(ctx);
			await measure(ctx, `${variant}-small`, {}, textOf(SMALL));
		}
		return await measure(ctx, `${variant}-${size}`, {}, textOf(tokens));
	};
	const results = await alternate(`${size}`, rounds, {
		'HTTP Request + Code': run('http'),
		'Run Flow': run('runflow'),
	});
	const notes =
		size === 'large' && MAX_LINE_MIB ? { 'Run Flow': `Max Line Size ${MAX_LINE_MIB} MiB` } : {};
	return table(`Run Flow vs HTTP Request + Code, ${tokens.toLocaleString('en')} tokens`, results, {
		baseline: 'HTTP Request + Code',
		figures: ['ms', 'cpuMs', 'heapMB', 'rssMB'],
		notes,
	});
}

async function streamPhase(ctx) {
	const nodeName = 'BotDojo Run Flow';
	const streamed = (key, gzip) => async () => {
		const row = await measure(ctx, key, { stream: true, gzip, nodeName });
		const flow = await ctx.emu.lastRun();
		row.beforeFlowEnd = row.firstItemAt !== undefined && row.firstItemAt < flow.respondedAt;
		if (key === 'stream-forward') textOf(SMALL)(row);
		return row;
	};
	const results = await alternate('stream', ROUNDS, {
		'forwarding off, gzip': streamed('stream-noforward', true),
		'forwarding on, gzip': streamed('stream-forward', true),
		'forwarding off, identity': streamed('stream-noforward', false),
		'forwarding on, identity': streamed('stream-forward', false),
	});
	const early = (name) =>
		`${results[name].filter((r) => r.beforeFlowEnd).length}/${results[name].length} first chunks before the flow's stream ended`;
	const split = (encoding) =>
		table(
			`Streaming Webhook → Run Flow, ${SMALL.toLocaleString('en')} tokens, ${encoding === 'gzip' ? 'Accept-Encoding: gzip' : 'no compression'}`,
			{
				[`forwarding off, ${encoding}`]: results[`forwarding off, ${encoding}`],
				[`forwarding on, ${encoding}`]: results[`forwarding on, ${encoding}`],
			},
			{
				baseline: `forwarding off, ${encoding}`,
				figures: ['ms', 'cpuMs', 'firstItemMs'],
				notes: { [`forwarding on, ${encoding}`]: early(`forwarding on, ${encoding}`) },
			},
		);
	return `${split('gzip')}\n\n${split('identity')}`;
}

async function exportPhase(ctx) {
	await ctx.emu.reset();
	await ctx.emu.seed('flow_echo', RECORDS);
	const exported = (key) => async () => {
		const pagesBefore = await ctx.emu.count('export');
		const row = await measure(
			ctx,
			key,
			{},
			(result) => {
				if (!result.json?.id) throw new Error(`${key}: no record in the answer`);
			},
			{ reset: false },
		);
		row.pages = (await ctx.emu.count('export')) - pagesBefore;
		return row;
	};
	const results = await alternate('export', ROUNDS, {
		'HTTP Request pagination + Split Out': exported('export-http'),
		'Export Return All': exported('export-node'),
	});
	return table(`Export, ${RECORDS.toLocaleString('en')} records`, results, {
		baseline: 'HTTP Request pagination + Split Out',
		figures: ['ms', 'cpuMs', 'heapMB', 'rssMB'],
	});
}

/**
 * Many items (issue 10 §3): Run Flow over ITEMS items of a 50 ms flow, 10 at once and one at a
 * time, n8n's HTTP Request node (every item's request at once: n8n's own node has no concurrency
 * bound), and the workflow without Run Flow, whose CPU is taken off to give the per item figure.
 */
async function itemsPhase(ctx) {
	const complete = (result) => {
		if (result.json?.status !== 'complete') throw new Error(`run not complete: ${result.raw}`);
	};
	const results = await alternate('items', ROUNDS, {
		'items only (Set + Split Out)': () => measure(ctx, 'items-only', {}),
		'Run Flow, one at a time': () => measure(ctx, 'items-c1', {}, complete),
		'Run Flow, concurrency 10': () => measure(ctx, 'items-c10', {}, complete),
		'HTTP Request, every item at once': () => measure(ctx, 'items-http', {}, complete),
	});
	const only = results['items only (Set + Split Out)'];
	for (const name of [
		'Run Flow, one at a time',
		'Run Flow, concurrency 10',
		'HTTP Request, every item at once',
	]) {
		results[name].forEach((row, i) => {
			row.cpuPerItemMs = (row.cpuMs - (only[i].cpuMs ?? 0)) / ITEMS;
		});
	}
	return table(`Run Flow over ${ITEMS} items of a 50 ms flow`, results, {
		baseline: 'Run Flow, one at a time',
		figures: ['ms', 'cpuMs', 'cpuPerItemMs'],
	});
}

/**
 * Remember by Key with REMEMBER_KEYS conversations saved (issue 19), one message at a time: a
 * known conversation (its session kept), a new one (one key in, the least recently used out),
 * and New Session for reference. n8n saves the static data whole after an execution that changed
 * it; the size of what a new conversation writes is that of the saved map.
 */
async function rememberPhase(ctx) {
	const session = (expected) => (result) => {
		if (result.json?.session !== expected)
			throw new Error(`expected session ${expected}: ${result.raw}`);
	};
	let fresh = 0;
	const chat = (name) => ({ query: `?chat=${encodeURIComponent(name)}` });
	// The known conversation's first message (its session made in the emulator, kept: no reset).
	await measure(ctx, 'chat-remember', chat('known'), session('new'), { reset: false });
	const results = await alternate('remember', ROUNDS, {
		'New Session': () => measure(ctx, 'chat-new-session', {}, undefined, { reset: false }),
		'Remember by Key, known conversation': () =>
			measure(ctx, 'chat-remember', chat('known'), session('continued'), { reset: false }),
		'Remember by Key, new conversation': () =>
			measure(ctx, 'chat-remember', chat(`new-${fresh++}`), session('new'), { reset: false }),
	});
	const saved = ctx.workflows['chat-remember'].workflow.staticData;
	const bytes = JSON.stringify(saved).length;
	return table(
		`One chat message, Remember by Key with ${REMEMBER_KEYS.toLocaleString('en')} conversations saved`,
		results,
		{
			baseline: 'New Session',
			figures: ['ms', 'cpuMs'],
			notes: {
				'Remember by Key, new conversation': `writes the map: ${(bytes / 1e3).toFixed(0)} kB`,
			},
		},
	);
}

async function main() {
	const started = Date.now();
	process.once('SIGINT', () => void stopBenchServer().finally(() => process.exit(130)));
	const ctx = await startBenchServer({
		workflowOptions: {
			smallTokens: SMALL,
			largeTokens: LARGE,
			largeRunFlowOptions: MAX_LINE_MIB ? { maxLineMiB: MAX_LINE_MIB } : {},
			items: ITEMS,
			rememberKeys: REMEMBER_KEYS,
			itemsLimits: FILE_ITEMS,
		},
		heapMb: HEAP_MB,
		log,
	});
	log('warm-up: each small workflow once');
	const warmUps = ['http-small', 'runflow-small', 'stream-forward', 'stream-noforward'];
	if (ONLY.includes('items')) warmUps.push('items-only', 'items-c10', 'items-http');
	if (ONLY.includes('remember')) warmUps.push('chat-new-session');
	for (const key of warmUps)
		await measure(
			ctx,
			key,
			key.startsWith('stream') ? { stream: true, nodeName: 'BotDojo Run Flow' } : {},
		);
	const tables = [];
	if (ONLY.includes('tokens')) tables.push(await tokenPhase(ctx, 'small', SMALL, ROUNDS));
	if (ONLY.includes('large') && LARGE)
		tables.push(await tokenPhase(ctx, 'large', LARGE, LARGE_ROUNDS));
	if (ONLY.includes('stream')) tables.push(await streamPhase(ctx));
	if (ONLY.includes('export')) tables.push(await exportPhase(ctx));
	if (ONLY.includes('items')) tables.push(await itemsPhase(ctx));
	if (ONLY.includes('remember')) tables.push(await rememberPhase(ctx));
	// Last of the default phases: it restarts n8n for every measured run.
	if (ONLY.includes('itemscpu'))
		tables.push(
			await itemsCpuPhase(ctx, { items: ITEMS, rounds: ROUNDS, measure, restartN8n, log }),
		);
	if (ONLY.includes('exportfile'))
		tables.push(
			await exportFilePhase(ctx, {
				emu: ctx.emu,
				logFile: path.join(ctx.userFolder, 'n8n.log'),
				log,
				measure,
				alternate,
				records: FILE_RECORDS,
				rounds: FILE_ROUNDS,
				itemsLimits: FILE_ITEMS,
				heapMb: HEAP_MB,
			}),
		);
	const cpus = require('node:os').cpus();
	console.log(
		[
			`## bench:n8n ${new Date().toISOString().slice(0, 16)}Z, n8n ${local.N8N_VERSION}, ${cpus.length} × ${cpus[0]?.model.trim()}, Node ${process.version} (client)`,
			'Each cell: min / median / max over the rounds; ×base: per-round ratio to the baseline (min / median / max).',
			'',
			tables.join('\n\n'),
		].join('\n'),
	);
	log(`done in ${local.formatDuration(Date.now() - started)}`);
}

main()
	.catch((error) => {
		console.error(`bench:n8n failed: ${error.stack || error.message}`);
		process.exitCode = 1;
	})
	.finally(() => stopBenchServer());
