'use strict';
/**
 * `node bench/rememberN8n.js`: Remember by Key at 10,000 saved keys against Session = New, in the
 * real n8n that `npm start` installs (one process, regular mode), as a chat runs it: one message
 * per webhook call, MESSAGES calls one after another per measurement. Within each round both
 * variants run (their order alternates), and the figures are the ratios within each round:
 * min / median / max. CPU is n8n's (with its task runner), read from /proc around each
 * measurement after n8n has settled, so saving the execution is counted.
 *   REMEMBER_ROUNDS (7), REMEMBER_MESSAGES (20), BENCH_REMEMBER_KEYS (10000)
 * Hold the real-n8n lock: flock /tmp/botdojo-realn8n.lock node bench/rememberN8n.js
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { performance } = require('node:perf_hooks');

const local = require('../scripts/n8n-local');
const { startBenchServer, stopBenchServer } = require('./n8n/server');
const { callWebhook } = require('./n8n/client');
const { treeCpuMs, settle } = require('./n8n/proc');

const number = (name, fallback) => Number(process.env[name] ?? fallback);
const ROUNDS = number('REMEMBER_ROUNDS', 7);
const MESSAGES = number('REMEMBER_MESSAGES', 20);
const KEYS = number('BENCH_REMEMBER_KEYS', 10_000);

const log = (message) => console.error(`[remember:n8n] ${message}`);
/** MESSAGES calls of a workflow, one after another: wall ms and n8n CPU ms. */
async function messages(ctx, key, query, expected) {
	await settle(ctx.pid);
	const cpuBefore = treeCpuMs(ctx.pid);
	const started = performance.now();
	for (let i = 0; i < MESSAGES; i++) {
		const result = await callWebhook(`${ctx.n8n.url}/webhook/${ctx.workflows[key].path}${query}`);
		if (result.status !== 200) throw new Error(`${key} answered ${result.status}`);
		if (expected && result.json?.session !== expected)
			throw new Error(`${key}: expected session ${expected}, got ${JSON.stringify(result.json)}`);
	}
	const ms = performance.now() - started;
	await settle(ctx.pid);
	return { ms, cpuMs: treeCpuMs(ctx.pid) - cpuBefore };
}

function spread(values, digits = 0) {
	const sorted = [...values].sort((a, b) => a - b);
	const median = sorted[Math.floor(sorted.length / 2)];
	const f = (v) => v.toFixed(digits);
	return `${f(median)} (${f(sorted[0])}–${f(sorted[sorted.length - 1])})`;
}

async function main() {
	process.once('SIGINT', () => void stopBenchServer().finally(() => process.exit(130)));
	const ctx = await startBenchServer({
		workflowOptions: { smallTokens: 10, largeTokens: 0, items: 1, rememberKeys: KEYS },
		log,
	});
	const known = '?chat=known';
	const load = [os.loadavg()[0]];
	log('warm-up');
	await messages(ctx, 'chat-new-session', '', undefined);
	await callWebhook(`${ctx.n8n.url}/webhook/${ctx.workflows['chat-remember'].path}${known}`);
	await messages(ctx, 'chat-remember', known, 'continued');
	const rows = { remember: [], new: [] };
	for (let round = 1; round <= ROUNDS; round++) {
		const order = round % 2 ? ['remember', 'new'] : ['new', 'remember'];
		for (const variant of order) {
			rows[variant].push(
				variant === 'remember'
					? await messages(ctx, 'chat-remember', known, 'continued')
					: await messages(ctx, 'chat-new-session', '', undefined),
			);
		}
		const [r, n] = [rows.remember[round - 1], rows.new[round - 1]];
		load.push(os.loadavg()[0]);
		log(
			`round ${round}: Remember by Key ${r.ms.toFixed(0)} ms, CPU ${r.cpuMs} ms; New Session ${n.ms.toFixed(0)} ms, CPU ${n.cpuMs} ms; ratio wall ${(r.ms / n.ms).toFixed(2)}, CPU ${(r.cpuMs / n.cpuMs).toFixed(2)}`,
		);
	}
	const saved = await savedStaticData(ctx);
	const per = (list, field) => list.map((row) => row[field] / MESSAGES);
	const ratio = (field) => rows.remember.map((row, i) => row[field] / rows.new[i][field]);
	console.log(
		[
			`## Remember by Key (${KEYS} keys saved, a known conversation) against New Session, n8n ${require('../scripts/n8n-local').N8N_VERSION}`,
			`${ROUNDS} rounds × ${MESSAGES} messages per variant, ${os.cpus().length} CPUs, load average ${spread(load, 1)} over the run`,
			'median (min–max) | wall ms per message | n8n CPU ms per message',
			`New Session | ${spread(per(rows.new, 'ms'), 1)} | ${spread(per(rows.new, 'cpuMs'), 1)}`,
			`Remember by Key | ${spread(per(rows.remember, 'ms'), 1)} | ${spread(per(rows.remember, 'cpuMs'), 1)}`,
			`ratio within rounds | ${spread(ratio('ms'), 2)} | ${spread(ratio('cpuMs'), 2)}`,
			`Saved static data of the Remember by Key workflow afterwards: ${saved}`,
		].join('\n'),
	);
}

/** What n8n's database holds as the workflow's static data (n8n stopped, read with its CLI). */
async function savedStaticData(ctx) {
	process.env.BENCH_KEEP = '1';
	await stopBenchServer();
	const file = path.join(ctx.userFolder, 'remember-export.json');
	const cli = {
		userFolder: ctx.userFolder,
		port: await local.freePort(),
		brokerPort: await local.freePort(),
	};
	await local.runN8nCli(['export:workflow', '--id=bdBenchchatremember', `--output=${file}`], cli);
	const [workflow] = JSON.parse(fs.readFileSync(file, 'utf8'));
	fs.rmSync(ctx.userFolder, { recursive: true, force: true });
	const node = workflow.staticData?.['node:BotDojo Run Flow'];
	const form =
		typeof node?.remembered?.flow_echo === 'string' ? 'one text per flow' : 'an object per flow';
	const lines =
		typeof node?.remembered?.flow_echo === 'string'
			? node.remembered.flow_echo.split('\n').length
			: Object.keys(node?.remembered?.flow_echo ?? {}).length;
	return `${(JSON.stringify(workflow.staticData).length / 1e6).toFixed(2)} MB, ${form}, ${lines} conversations`;
}

main()
	.catch((error) => {
		console.error(`remember:n8n failed: ${error.stack || error.message}`);
		process.exitCode = 1;
	})
	.finally(() => stopBenchServer());
