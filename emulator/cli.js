#!/usr/bin/env node
'use strict';
/** `npm run emulator`: start the BotDojo emulator on PORT (default 3939), 127.0.0.1 only. */
const { startEmulator } = require('./index');

async function main() {
	const port = process.env.PORT ? Number(process.env.PORT) : 3939;
	if (!Number.isInteger(port) || port < 0 || port > 65535) {
		console.error(`Invalid PORT: ${process.env.PORT}`);
		process.exit(2);
	}
	const emu = await startEmulator({ port, host: '127.0.0.1', seedDemo: true });
	const lines = [
		'BotDojo emulator listening (in memory, 127.0.0.1 only)',
		'',
		`  Base URL      ${emu.baseUrl}`,
		`  Account ID    ${emu.accountId}`,
		`  Project ID    ${emu.projectId}`,
		'',
		`  Project key   ${emu.keys.project}`,
		`  Flow key      ${emu.keys.flow}   (may only run flow_echo)`,
		`  No-upload key ${emu.keys.noUpload}   (project key without upload permission)`,
		'',
		`  Flows         ${[...emu.flows.keys()].join(', ')}`,
		'  Indexes       idx_docs (ready), idx_building (indexing)',
		'  Demo data     10 flow_echo records (5 yesterday), session ses_demo, document docs/welcome.txt',
		'',
		'  Faults        header X-Emulator-Fault: <type>[;key=value...]  (see emulator/README.md)',
		'',
		'Ctrl-C to stop.',
	];
	console.log(lines.join('\n'));

	let stopping = false;
	const stop = async (/** @type {string} */ signal) => {
		if (stopping) return;
		stopping = true;
		console.log(`\n${signal}: closing the emulator`);
		await emu.close();
		process.exit(0);
	};
	process.on('SIGINT', () => void stop('SIGINT'));
	process.on('SIGTERM', () => void stop('SIGTERM'));
}

main().catch((err) => {
	console.error(
		err && err.code === 'EADDRINUSE'
			? `Port ${err.port} is in use (another BotDojo emulator or npm start?). Stop that program, or set PORT to another port.`
			: err,
	);
	process.exit(1);
});
