/* eslint-disable @n8n/community-nodes/no-restricted-imports -- test code: runs in jest, never in n8n */
import './userFolder';

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/**
 * n8n's binary data modes: `memory` keeps a file as base64 in its item, `filesystem` stores it
 * under a temp folder and leaves an `id` in the item (what n8n does by default for large files).
 */
export type BinaryMode = 'memory' | 'filesystem';

/** n8n-core's own DI container (it may carry its own copy of @n8n/di). */
export function coreContainer(): { get<T>(type: new (...args: never[]) => T): T } {
	const diPath = require.resolve('@n8n/di', { paths: [require.resolve('n8n-core')] });
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	return (require(diPath) as { Container: ReturnType<typeof coreContainer> }).Container;
}

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
		container.get(BinaryDataConfig).localStoragePath = fs.mkdtempSync(
			path.join(os.tmpdir(), 'n8n-botdojo-binary-'),
		);
		await service.init();
	}
	// With no manager for the mode, n8n-core keeps binaries in memory (base64 in the item).
	service.mode = mode === 'filesystem' ? 'filesystem-v2' : 'default';
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
