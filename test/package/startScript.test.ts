/**
 * Issue 35 §13 and 36, the start script's small holes, checked on the script itself (the whole
 * first hour in a real n8n: npm run test:e2e:start). `npm start` runs in a copy of this clone, and
 * is stopped the moment it starts building (packageScripts.startUntilBuild).
 */
import { linkStaticCache } from '../../scripts/lib/n8n-process';
import {
	copyRepository,
	freePort,
	holdClone,
	isPrivateFolderOfOurs,
	linkCacheTo,
	occupyPort,
	plantPredictableCache,
	removeCopy,
	removeFolders,
	startUntilBuild,
	tempFolder,
} from '../helpers/packageScripts';

describe('npm start', () => {
	let dir: string;
	beforeAll(() => {
		dir = copyRepository();
	});
	afterAll(() => removeCopy(dir));

	const ports = async () => ({
		N8N_PORT: String(await freePort()),
		BOTDOJO_EMULATOR_PORT: String(await freePort()),
	});

	it('refuses a second start in the same clone, and leaves the first running', async () => {
		const first = holdClone(dir);
		try {
			const second = await startUntilBuild(dir, await ports());
			expect(second.stderr).toContain(
				`npm start is already running in this clone (pid ${first.pid}); it keeps running. Use its n8n, or stop it first (Ctrl-C in its terminal, or kill ${first.pid}).`,
			);
			expect(second.code).toBe(1);
			expect(second.stdout).not.toContain('Building');
			expect(first.alive()).toBe(true);
			expect(first.claim()).toBe(String(first.pid));
		} finally {
			first.stop();
		}
	});

	it('takes N8N_RUNNERS_BROKER_PORT as it is: a busy one stops it before building', async () => {
		const busy = await occupyPort();
		try {
			const result = await startUntilBuild(dir, {
				...(await ports()),
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
	const made: string[] = [];
	afterAll(() => removeFolders(...made));
	const folder = (prefix: string, mode?: number) => {
		const created = tempFolder(prefix, mode);
		made.push(created);
		return created;
	};

	it('is a private folder of ours, not a predictable one that someone else may have made', () => {
		const userFolder = folder('botdojo-user-');
		const planted = plantPredictableCache(userFolder);
		made.push(planted);
		const target = linkStaticCache(userFolder);
		made.push(target);
		expect(target).not.toBe(planted);
		expect(isPrivateFolderOfOurs(target)).toBe(true);
		expect(linkStaticCache(userFolder)).toBe(target); // kept from one start to the next
	});

	it('leaves a folder that others may write, and links a private one instead', () => {
		const userFolder = folder('botdojo-user-');
		const open = folder('botdojo-open-', 0o777);
		linkCacheTo(userFolder, open);
		const target = linkStaticCache(userFolder);
		made.push(target);
		expect(target).not.toBe(open);
		expect(isPrivateFolderOfOurs(target)).toBe(true);
	});
});
