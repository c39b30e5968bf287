/* eslint-disable @n8n/community-nodes/no-restricted-imports -- test code: runs in jest, never in n8n */
import './userFolder';

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/**
 * n8n's binary data modes: `memory` keeps a file as base64 in its item, `filesystem` stores it
 * under a temp folder and leaves an `id` in the item (what n8n does by default for large files),
 * `database` (queue mode's default in n8n 2.x) keeps it whole, at most
 * N8N_BINARY_DATA_DATABASE_MAX_FILE_SIZE MiB (n8n-core's BinaryDataConfig reads it).
 */
export type BinaryMode = 'memory' | 'filesystem' | 'database';

/** n8n-core's own DI container (it may carry its own copy of @n8n/di). */
export function coreContainer(): { get<T>(type: new (...args: never[]) => T): T } {
	const diPath = require.resolve('@n8n/di', { paths: [require.resolve('n8n-core')] });
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	return (require(diPath) as { Container: ReturnType<typeof coreContainer> }).Container;
}

/** Filesystem-mode storage folders, removed after the test file: an export test stores 130 MB
 *  there, and every `npm test` used to leave such folders in the temp directory. */
const storageFolders: string[] = [];
afterAll(() => {
	for (const folder of storageFolders.splice(0))
		fs.rmSync(folder, { recursive: true, force: true });
});

/**
 * Switches the binary data mode of the runs that follow (jest isolates modules per test file,
 * so this does not reach other files). Files stored earlier stay readable in either mode.
 */
export async function setBinaryMode(mode: BinaryMode): Promise<void> {
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const { BinaryDataConfig, BinaryDataService } = require('n8n-core') as typeof import('n8n-core');
	const container = coreContainer();
	const service = container.get(BinaryDataService) as unknown as {
		mode: string;
		managers: Record<string, unknown>;
		init(): Promise<void>;
	};
	if (mode === 'filesystem' && !service.managers.filesystem) {
		const storage = fs.mkdtempSync(path.join(os.tmpdir(), 'n8n-botdojo-binary-'));
		storageFolders.push(storage);
		container.get(BinaryDataConfig).localStoragePath = storage;
		await service.init();
	}
	if (mode === 'database') {
		service.managers.database ??= databaseManager(container.get(BinaryDataConfig).dbMaxFileSize);
		service.mode = 'database';
		return;
	}
	// With no manager for the mode, n8n-core keeps binaries in memory (base64 in the item).
	service.mode = mode === 'filesystem' ? 'filesystem-v2' : 'default';
}

/**
 * n8n's DatabaseManager (in the n8n package, not n8n-core) with a Map for its table: `store`
 * reads the body whole and refuses it beyond the cap before storing anything, as n8n 2.40.7 does.
 */
function databaseManager(maxFileSizeMb: number) {
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const { FileTooLargeError } = require('n8n-core') as typeof import('n8n-core');
	const network = require.resolve('@n8n/backend-network', { paths: [require.resolve('n8n-core')] });
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const { binaryToBuffer } = require(network) as { binaryToBuffer(body: unknown): Promise<Buffer> };
	const files = new Map<string, Buffer>();
	return {
		async store(_location: unknown, body: unknown, metadata: { fileName?: string }) {
			const buffer = await binaryToBuffer(body);
			const fileId = `db-${files.size + 1}`;
			const fileSizeMb = buffer.length / (1024 * 1024);
			if (fileSizeMb > maxFileSizeMb)
				throw new FileTooLargeError({
					fileSizeMb,
					maxFileSizeMb,
					fileId,
					fileName: metadata.fileName,
				});
			files.set(fileId, buffer);
			return { fileId, fileSize: buffer.length };
		},
		getAsBuffer: async (fileId: string) => files.get(fileId),
		/** The files stored so far (a refused file is not among them). */
		files,
	};
}

/** How many files the database stand-in holds (after setBinaryMode('database')). */
export function databaseFileCount(): number {
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const { BinaryDataService } = require('n8n-core') as typeof import('n8n-core');
	const service = coreContainer().get(BinaryDataService) as unknown as {
		managers: { database?: { files: Map<string, Buffer> } };
	};
	return service.managers.database?.files.size ?? 0;
}

/** The bytes of a binary in either mode, read the way nodes read them. */
export async function readBinary(binary: import('n8n-workflow').IBinaryData): Promise<Buffer> {
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const { BinaryDataService } = require('n8n-core') as typeof import('n8n-core');
	return await coreContainer().get(BinaryDataService).getAsBuffer(binary);
}

/** The folder where filesystem mode stores files (after setBinaryMode('filesystem')). */
export function binaryStoragePath(): string {
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const { BinaryDataConfig } = require('n8n-core') as typeof import('n8n-core');
	return coreContainer().get(BinaryDataConfig).localStoragePath;
}
