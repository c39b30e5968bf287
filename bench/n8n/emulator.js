'use strict';
/**
 * The BotDojo emulator in its own process (as a remote BotDojo would be: its CPU and memory stay
 * out of n8n's figures), driven over IPC: seed export records, forget records, read the
 * timing of the last run.
 */
const path = require('node:path');
const { spawn } = require('node:child_process');

const CHILD = `
const { startEmulator } = require(${JSON.stringify(path.resolve(__dirname, '../../emulator'))});
startEmulator({ port: 0, host: '127.0.0.1' }).then((emu) => {
	process.on('message', ({ id, command, args }) => {
		let result = null;
		if (command === 'seed') result = emu.seedFlowRequests(args.flowId, args.count, { stepMs: 10 }).length;
		if (command === 'reset') emu.reset();
		if (command === 'lastRun') {
			const run = emu.requests.filter((r) => r.endpoint === 'run').pop();
			result = run ? { receivedAt: run.receivedAt, respondedAt: run.respondedAt, status: run.status } : null;
		}
		if (command === 'count') result = emu.requests.filter((r) => r.endpoint === args.endpoint).length;
		if (command === 'close') return emu.close().then(() => process.exit(0));
		process.send({ id, result });
	});
	process.send({ ready: { baseUrl: emu.baseUrl, accountId: emu.accountId,
		projectId: emu.projectId, apiKey: emu.keys.project } });
});`;

async function startEmulatorProcess() {
	const child = spawn(process.execPath, ['-e', CHILD], {
		stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
	});
	const exited = new Promise((resolve) => child.once('exit', resolve));
	const target = await new Promise((resolve, reject) => {
		child.once('message', (message) => resolve(message.ready));
		child.once('exit', (code) => reject(new Error(`the emulator exited with ${code}`)));
	});
	let nextId = 0;
	const call = (command, args) =>
		new Promise((resolve) => {
			const id = ++nextId;
			const onMessage = (message) => {
				if (message.id !== id) return;
				child.off('message', onMessage);
				resolve(message.result);
			};
			child.on('message', onMessage);
			child.send({ id, command, args });
		});
	return {
		target,
		pid: child.pid,
		seed: (flowId, count) => call('seed', { flowId, count }),
		reset: () => call('reset'),
		lastRun: () => call('lastRun'),
		count: (endpoint) => call('count', { endpoint }),
		async close() {
			if (child.exitCode !== null || child.signalCode) return;
			child.send({ command: 'close' });
			const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
			await exited;
			clearTimeout(timer);
		},
	};
}

module.exports = { startEmulatorProcess };
