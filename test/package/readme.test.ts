/**
 * Issue 27 §5: the README answers a newcomer's first questions (host, ports, install from npm),
 * with the names the scripts really read and the message they really print.
 */
import { ROOT, readFile } from '../helpers/packageScripts';

const readme = readFile(ROOT, 'README.md');
const { version } = JSON.parse(readFile(ROOT, 'package.json'));
const setUp = readme.slice(readme.indexOf('## Set-up'), readme.indexOf('## Credentials'));

describe('the README', () => {
	it('says what the host needs: Linux x64, Node 24 (or 20.19+/22.13+), the toolchain, disk', () => {
		const host = setUp.replace(/\s+/g, ' ');
		expect(host).toContain('**What the host needs.** Linux x64, Node.js 24 with npm');
		expect(host).toContain('Node.js 20.19+ and 22.13+ work too');
		expect(host).toContain('python3, make and g++');
		expect(host).toContain('about 4 GB of disk');
	});

	it('names the variables that move n8n and the emulator, as the scripts read them', () => {
		const start = readFile(ROOT, 'scripts/start.js');
		const ports = [...start.matchAll(/process\.env\.(\w+_PORT)\b/g)].map((m) => m[1]);
		expect(new Set(ports)).toEqual(
			new Set(['N8N_PORT', 'BOTDOJO_EMULATOR_PORT', 'N8N_RUNNERS_BROKER_PORT']),
		);
		for (const variable of ports) expect(setUp).toContain(`\`${variable}\``);
		expect(readFile(ROOT, 'emulator/cli.js')).toContain('process.env.PORT');
		expect(setUp).toContain('`npm run emulator` alone listens on 3939; `PORT`\nmoves it');
	});

	it('quotes the busy emulator port message npm start prints', () => {
		const start = readFile(ROOT, 'scripts/start.js');
		// refuseBusyPort(port, holder, setting) words every busy port; the emulator's call fills it.
		const template = /`(Port \$\{port\} is in use[^`]*)`/.exec(start)?.[1];
		const call = /refuseBusyPort\(\s*EMULATOR_PORT,\s*'([^']*)',\s*'([^']*)',?\s*\)/.exec(start);
		expect(template).toBeDefined();
		expect(call).not.toBeNull();
		const quoted = String(template)
			.replace('${port}', '3789')
			.replace('${holder}', String(call?.[1]))
			.replace('${setting}', String(call?.[2]));
		expect(setUp.replace(/\s+/g, ' ')).toContain(`("${quoted}")`);
	});

	it('says that installing from npm works once the package is published', () => {
		const install = readme.slice(readme.indexOf('## Installing'), readme.indexOf('## Credentials'));
		expect(install).toContain(
			`These commands work once the package is published on npm; version ${version} is not published yet.`,
		);
	});
});
