/**
 * package.json `repository` is the one setting that names the repository. check:tarball reports
 * its placeholder, the release workflow refuses to publish it (its tarball check and its publish
 * step run the check with --release), and once it is set every link follows it. Each case runs
 * the real script on a copy of this repository (with the built dist/), as a release would.
 */
import {
	ROOT,
	buildCodex,
	checkTarball,
	copyRepository,
	editFile,
	readFile,
	removeCopy,
	runBash,
} from '../helpers/packageScripts';

const REAL = 'git+https://github.com/example-org/n8n-nodes-botdojo.git';
const PAGE =
	'https://github.com/example-org/n8n-nodes-botdojo/blob/HEAD/nodes/BotDojoRunFlow/README.md';
const RELEASE = readFile(ROOT, '.github/workflows/release.yml');

/** The `run:` script of the release workflow's step with this name. */
function releaseStep(name: string): string {
	const lines = RELEASE.split('\n');
	const start = lines.findIndex((line) => line.trim() === `- name: ${name}`);
	const run = lines.findIndex((line, i) => i > start && /^\s+run: /.test(line));
	const inline = /^\s+run: (?!\|)(.*)$/.exec(lines[run]);
	if (inline) return inline[1];
	const indent = /^\s*/.exec(lines[run + 1])?.[0] ?? '';
	const body: string[] = [];
	for (let i = run + 1; i < lines.length && lines[i].startsWith(indent); i++)
		body.push(lines[i].slice(indent.length));
	return body.join('\n');
}

/** The release workflow's jobs: { [job]: its lines }. */
function releaseJobs(): Record<string, string> {
	const jobs: Record<string, string> = {};
	let current = '';
	for (const line of RELEASE.slice(RELEASE.indexOf('\njobs:')).split('\n').slice(2)) {
		const job = /^ {2}([\w-]+):$/.exec(line);
		if (job) current = job[1];
		if (current) jobs[current] = `${jobs[current] ?? ''}${line}\n`;
	}
	return jobs;
}

function setRepository(dir: string, url: string) {
	editFile(dir, 'package.json', (text: string) =>
		JSON.stringify({ ...JSON.parse(text), repository: { type: 'git', url } }, null, 2),
	);
}

describe('the repository is named in one place, and publishing refuses its placeholder', () => {
	const copies: string[] = [];
	const copy = () => {
		const dir = copyRepository();
		copies.push(dir);
		return dir;
	};
	afterAll(() => copies.forEach(removeCopy));

	it('the release workflow refuses to publish while package.json repository names the placeholder', () => {
		const script = releaseStep('Publish with provenance');
		expect(script).toContain('npm publish');
		// The step as GitHub runs it, with npm held to a dry run on an unreachable registry.
		const result = runBash(script, copy(), {
			npm_config_dry_run: 'true',
			npm_config_registry: 'http://127.0.0.1:9',
			npm_config_provenance: 'false',
		});
		expect(result.code).toBe(1);
		expect(result.out).toContain(
			'package.json repository still names the placeholder OWNER/n8n-nodes-botdojo',
		);
		expect(result.out).not.toContain('Tarball Contents');
	});

	it('the release workflow checks the tarball for release before its publish step', () => {
		expect(releaseStep('Tarball check')).toContain('npm run check:tarball -- --release');
		expect(RELEASE.indexOf('name: Tarball check')).toBeLessThan(
			RELEASE.indexOf('name: Publish with provenance'),
		);
		expect(RELEASE).not.toMatch(/continue-on-error|if: always\(\)/);
	});

	it('only the publish job may mint the OIDC token, and it runs no dependency code', () => {
		const jobs = releaseJobs();
		expect(Object.keys(jobs).sort()).toEqual(['check', 'publish']);
		expect(RELEASE.slice(0, RELEASE.indexOf('\njobs:'))).toContain('\npermissions: {}\n');
		expect(jobs.check).not.toContain('id-token');
		expect(jobs.publish).toContain('id-token: write');
		expect(jobs.publish).toContain('needs: check');
		// What runs with the token: no install, no build, no test, no npm script.
		expect(jobs.publish).not.toMatch(/npm (ci|install|test|run)\b/);
		expect(releaseStep('Publish with provenance')).toContain('npm publish');
	});

	it('the release workflow pins every action by commit and shares no npm cache', () => {
		const uses = RELEASE.split('\n').filter((line) => /^\s+(- )?uses: /.test(line));
		expect(uses.length).toBeGreaterThan(3);
		for (const line of uses) expect(line).toMatch(/uses: [\w-]+\/[\w-]+@[0-9a-f]{40} # v\d/);
		expect(RELEASE).not.toMatch(/^\s+cache:/m);
	});

	it('check:tarball reports the placeholder without failing, and finds it nowhere else', () => {
		const result = checkTarball(copy());
		expect(result.code).toBe(0);
		expect(result.out).toContain(
			'package.json repository names the placeholder OWNER/n8n-nodes-botdojo: the release workflow refuses to publish',
		);
	});

	it('with the real repository set and built, the release check passes and the codex links follow it', () => {
		const dir = copy();
		setRepository(dir, REAL);
		expect(checkTarball(dir, '--release').out).toContain('run npm run build again');
		buildCodex(dir);
		const result = checkTarball(dir, '--release');
		expect(result.out).toContain('repository example-org/n8n-nodes-botdojo.');
		expect(result.code).toBe(0);
		const codex = JSON.parse(readFile(dir, 'dist/nodes/BotDojoRunFlow/BotDojoRunFlow.node.json'));
		expect(codex.resources.primaryDocumentation.map((d: { url: string }) => d.url)).toEqual([
			PAGE,
			'https://docs.botdojo.com/docs/api',
		]);
	});

	it('refuses a link that names the repository by URL, a dead link, and the placeholder elsewhere', () => {
		const dir = copy();
		setRepository(dir, REAL);
		buildCodex(dir);
		editFile(dir, 'README.md', (text: string) =>
			text.concat(
				'\n[nodes](https://github.com/example-org/n8n-nodes-botdojo/blob/main/docs/nodes.md)\n',
				'[gone](docs/gone.md) [no heading](docs/nodes.md#no-such-heading)\n',
			),
		);
		editFile(dir, 'docs/chat-memory.md', (text: string) =>
			text.concat('\nSee https://github.com/OWNER/n8n-nodes-botdojo/issues.\n'),
		);
		const result = checkTarball(dir);
		expect(result.code).toBe(1);
		expect(result.out).toContain(
			'README.md links to https://github.com/example-org/n8n-nodes-botdojo/blob/main/docs/nodes.md: make it relative',
		);
		expect(result.out).toContain(
			'README.md links to docs/gone.md, but the repository has no docs/gone.md',
		);
		expect(result.out).toContain('docs/nodes.md has no heading #no-such-heading');
		expect(result.out).toContain(
			'docs/chat-memory.md holds the placeholder OWNER: only package.json repository may',
		);
	});
});
