/**
 * Issue 35 §13 and 36, the start script's small holes, checked on the script itself (the whole
 * first hour in a real n8n: npm run test:e2e:start). `npm start` runs in a copy of this clone, and
 * is stopped the moment it starts building: a check that fails must not go on to install n8n.
 */
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { linkStaticCache } from '../../scripts/lib/n8n-process';
import { copyRepository, freePort, occupyPort, removeCopy } from '../helpers/packageScripts';

type Result = { code: number | null; stdout: string; stderr: string };

/** `node scripts/start.js` in dir; killed if it gets as far as building. */
function startUntilBuild(dir: string, env: Record<string, string>): Promise<Result> {
	return new Promise((resolve) => {
		const child = spawn(process.execPath, ['scripts/start.js'], {
			cwd: dir,
			env: {
				...process.env,
				BOTDOJO_API_KEY: '',
				BOTDOJO_ACCOUNT_ID: '',
				BOTDOJO_PROJECT_ID: '',
				...env,
			},
		});
		const result: Result = { code: null, stdout: '', stderr: '' };
		child.stdout.on('data', (chunk) => {
			result.stdout += chunk;
			if (result.stdout.includes('Building')) child.kill('SIGKILL');
		});
		child.stderr.on('data', (chunk) => (result.stderr += chunk));
		child.on('close', (code) => resolve({ ...result, code }));
	});
}

describe('npm start', () => {
	let dir: string;
	beforeAll(() => {
		dir = copyRepository();
	});
	afterAll(() => removeCopy(dir));

	it('refuses a second start in the same clone, and leaves the first running', async () => {
		// Stands for the first `npm start`: a live process whose command line runs scripts/start.js.
		const first = spawn(process.execPath, [
			'-e',
			'setInterval(() => {}, 1000)',
			'scripts/start.js',
		]);
		const userFolder = path.join(dir, '.n8n-local', 'user');
		fs.mkdirSync(userFolder, { recursive: true });
		fs.writeFileSync(path.join(userFolder, 'npm-start.pid'), String(first.pid));
		try {
			const second = await startUntilBuild(dir, {
				N8N_PORT: String(await freePort()),
				BOTDOJO_EMULATOR_PORT: String(await freePort()),
			});
			expect(second.stderr).toContain(
				`npm start is already running in this clone (pid ${first.pid}); it keeps running. Use its n8n, or stop it first (Ctrl-C in its terminal, or kill ${first.pid}).`,
			);
			expect(second.code).toBe(1);
			expect(second.stdout).not.toContain('Building');
			expect(first.exitCode).toBeNull();
			expect(fs.readFileSync(path.join(userFolder, 'npm-start.pid'), 'utf8')).toBe(
				String(first.pid),
			);
		} finally {
			first.kill();
		}
	});

	it('takes N8N_RUNNERS_BROKER_PORT as it is: a busy one stops it before building', async () => {
		const busy = await occupyPort();
		try {
			const result = await startUntilBuild(dir, {
				N8N_PORT: String(await freePort()),
				BOTDOJO_EMULATOR_PORT: String(await freePort()),
				N8N_RUNNERS_BROKER_PORT: String(busy.port),
			});
			expect(result.stderr).toContain(
				`Port ${busy.port} is in use (another n8n’s task broker?). Stop that program, or set N8N_RUNNERS_BROKER_PORT to another port.`,
			);
			expect(result.code).toBe(1);
			expect(result.stdout).not.toContain('Building');
		} finally {
			await busy.close();
		}
	});
});

describe("n8n's editor cache (linkStaticCache)", () => {
	let userFolder: string;
	beforeEach(() => {
		userFolder = fs.mkdtempSync(path.join(os.tmpdir(), 'botdojo-user-'));
	});
	afterEach(() => {
		const target = fs.readlinkSync(path.join(userFolder, '.cache'));
		fs.rmSync(target, { recursive: true, force: true });
		fs.rmSync(userFolder, { recursive: true, force: true });
	});

	const isPrivateAndOurs = (folder: string) => {
		const stat = fs.lstatSync(folder);
		return stat.isDirectory() && stat.uid === process.getuid?.() && (stat.mode & 0o777) === 0o700;
	};

	it('is a private folder of ours, not a predictable one that someone else may have made', () => {
		// The folder the cache had before, a name anyone could compute, made first by someone else.
		const hash = crypto.createHash('sha1').update(userFolder).digest('hex').slice(0, 12);
		const planted = path.join(os.tmpdir(), 'n8n-nodes-botdojo-cache', hash);
		fs.mkdirSync(planted, { recursive: true, mode: 0o777 });
		fs.chmodSync(planted, 0o777);
		try {
			const target = linkStaticCache(userFolder);
			expect(target).not.toBe(planted);
			expect(fs.realpathSync(path.join(userFolder, '.cache'))).toBe(fs.realpathSync(target));
			expect(isPrivateAndOurs(target)).toBe(true);
			expect(linkStaticCache(userFolder)).toBe(target); // kept from one start to the next
		} finally {
			fs.rmSync(planted, { recursive: true, force: true });
		}
	});

	it('leaves a folder that others may write, and links a private one instead', () => {
		const open = fs.mkdtempSync(path.join(os.tmpdir(), 'botdojo-open-'));
		fs.chmodSync(open, 0o777);
		fs.symlinkSync(open, path.join(userFolder, '.cache'), 'dir');
		try {
			const target = linkStaticCache(userFolder);
			expect(target).not.toBe(open);
			expect(isPrivateAndOurs(target)).toBe(true);
			expect(fs.existsSync(open)).toBe(true); // not ours to remove
		} finally {
			fs.rmSync(open, { recursive: true, force: true });
		}
	});
});
