'use strict';
/**
 * The bench's servers: the BotDojo emulator in its own process and the real n8n that `npm start`
 * installs, with the packed package and the bench workflows imported and active.
 */
const fs = require('node:fs');
const path = require('node:path');

const local = require('../../scripts/n8n-local');
const { startEmulatorProcess } = require('./emulator');
const { benchWorkflows, CREDENTIAL, HEADER_AUTH } = require('./workflows');

const state = {
	emu: undefined,
	stopN8n: undefined,
	userFolder: undefined,
	ports: undefined,
	extraEnv: undefined,
};

/** n8n's Node options: the heap cap, and BENCH_NODE_OPTIONS (e.g. `--cpu-prof` to profile it). */
function nodeOptions(heapMb) {
	const options = [
		heapMb ? `--max-old-space-size=${heapMb}` : '',
		process.env.BENCH_NODE_OPTIONS ?? '',
	];
	const joined = options.filter(Boolean).join(' ');
	return joined ? { NODE_OPTIONS: joined } : {};
}

/** Starts the emulator and an n8n with the packed package and the bench workflows, active. */
async function startBenchServer({ workflowOptions, heapMb, log }) {
	state.emu = await startEmulatorProcess();
	const { target } = state.emu;
	await local.ensureN8nInstalled({ log });
	const packed = local.buildAndPack();
	fs.mkdirSync(local.LOCAL_DIR, { recursive: true });
	state.userFolder = fs.mkdtempSync(path.join(local.LOCAL_DIR, 'bench-'));
	local.installPackageInto(state.userFolder, packed);
	packed.cleanup();
	state.ports = { port: await local.freePort(), brokerPort: await local.freePort() };
	const ports = state.ports;
	const workflows = benchWorkflows(target, workflowOptions);
	await local.importIntoN8n({
		userFolder: state.userFolder,
		ports,
		credentials: [
			local.botDojoCredential(target, CREDENTIAL.botDojoApi),
			{
				...HEADER_AUTH.httpHeaderAuth,
				type: 'httpHeaderAuth',
				data: { name: 'Authorization', value: target.apiKey },
			},
		],
		workflows: Object.values(workflows).map((w) => w.workflow),
	});
	state.extraEnv = {
		N8N_METRICS: 'true',
		...nodeOptions(heapMb),
	};
	const n8n = await startServer();
	const session = new local.N8nSession(n8n.url);
	await session.setupOwnerOrLogin({
		email: 'bench@example.com',
		firstName: 'Bench',
		lastName: 'Mark',
		password: local.newPassword(),
	});
	for (const { workflow } of Object.values(workflows))
		await local.activateWorkflow(session, workflow.id);
	log(
		`n8n ${local.N8N_VERSION} on ${n8n.url} (pid ${n8n.child.pid}${heapMb ? `, heap cap ${heapMb} MB` : ''}), emulator on ${target.baseUrl}`,
	);
	return { n8n, workflows, pid: n8n.child.pid, emu: state.emu, userFolder: state.userFolder };
}

function startServer() {
	return local.startN8n({
		userFolder: state.userFolder,
		...state.ports,
		logFile: path.join(state.userFolder, 'n8n.log'),
		extraEnv: state.extraEnv,
		onSpawn: (stop) => (state.stopN8n = stop),
	});
}

/**
 * Stops n8n and starts it again on the same folder, database and ports (its workflows stay
 * active): a fresh process, whose figures no earlier call has shaped. Updates ctx.n8n, ctx.pid.
 */
async function restartN8n(ctx) {
	await state.stopN8n?.();
	ctx.n8n = await startServer();
	ctx.pid = ctx.n8n.child.pid;
	return ctx;
}

/** Stops n8n and the emulator and removes n8n's user folder (BENCH_KEEP=1 keeps it). */
async function stopBenchServer() {
	await state.stopN8n?.().catch(() => undefined);
	await state.emu?.close().catch(() => undefined);
	if (state.userFolder && process.env.BENCH_KEEP !== '1') {
		const cache = path.join(state.userFolder, '.cache');
		if (fs.existsSync(cache)) fs.rmSync(fs.realpathSync(cache), { recursive: true, force: true });
		fs.rmSync(state.userFolder, { recursive: true, force: true });
	}
}

module.exports = { startBenchServer, stopBenchServer, restartN8n };
