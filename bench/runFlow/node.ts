/** BotDojo Run Flow through n8n's engine, with hooks into its NDJSON reader for the probes. */
import type { IDataObject } from 'n8n-workflow';

import * as ndjson from '../../nodes/shared/transport/ndjson';
import { runNode, type BotDojoCredentialData } from '../../test/helpers/engine';
import type { RawHooks } from './raw';

export const bigRun = (tokens: number) => ({
	flowId: 'flow_big',
	inputMode: 'json',
	bodyJson: `{"tokens": ${tokens}}`,
});

export async function nodeRun(
	credentials: BotDojoCredentialData,
	parameters: Record<string, unknown>,
	items: Array<{ json: IDataObject }> = [{ json: {} }],
	onChunk?: (type: string) => void,
) {
	const result = await runNode({
		node: { type: 'botDojoRunFlow', parameters: parameters as never },
		credentials: { main: credentials },
		items,
		streaming: onChunk !== undefined,
		onChunk: onChunk ? (chunk) => onChunk(chunk.type) : undefined,
	});
	if (result.error) throw new Error(`node run failed: ${result.error.message}`);
	return result;
}

/**
 * Runs `reader` with the node's NDJSON reader hooked: `beforeChunk` sees each chunk of the
 * stream before the reader does, `afterFinal` runs once the reader returned the final value
 * (the run's collector is still alive then: the output is built after).
 */
export async function withStreamHooks<T>(hooks: RawHooks, reader: () => Promise<T>): Promise<T> {
	const original = ndjson.readNdjsonStream;
	const spy = jest.spyOn(ndjson, 'readNdjsonStream').mockImplementation(async (source, options) => {
		let bytes = 0;
		const hooked = {
			async *[Symbol.asyncIterator]() {
				for await (const chunk of source) {
					const length = typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length;
					hooks.beforeChunk?.(bytes, length);
					bytes += length;
					yield chunk;
				}
			},
		} as AsyncIterable<Uint8Array>;
		const result = await original(hooked, options);
		hooks.afterFinal?.();
		return result;
	});
	try {
		return await reader();
	} finally {
		spy.mockRestore();
	}
}
