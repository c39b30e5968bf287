/* eslint-disable @n8n/community-nodes/no-restricted-imports -- benchmark code: runs in jest, never in n8n */
/**
 * The raw baseline: what a careful programmer writes without n8n. One POST, the NDJSON read as
 * it comes, tokens concatenated, the final line parsed. Linear: an unfinished line is kept as
 * pieces and joined once, when its newline arrives (re-joining it on every chunk, as the old
 * baseline did, is quadratic and made the baseline slower the larger the answer).
 */
import * as http from 'node:http';

import type { BotDojoCredentialData } from '../../test/helpers/engine';

export interface RawResult {
	text: string;
	events: number;
	bytes: number;
	/** Size of the final result line, newline included (it repeats the text twice). */
	finalBytes: number;
}

export interface RawHooks {
	/** Before each chunk is read, with the bytes of the chunks before it and its own length. */
	beforeChunk?: (bytesBefore: number, length: number) => void;
	/** Once the final line is parsed. */
	afterFinal?: () => void;
}

export function runUrl(credentials: BotDojoCredentialData, flowId: string): URL {
	const { baseUrl, accountId, projectId } = credentials;
	return new URL(`${baseUrl}/accounts/${accountId}/projects/${projectId}/flows/${flowId}/run`);
}

export function rawRun(
	credentials: BotDojoCredentialData,
	flowId: string,
	body: object,
	hooks: RawHooks = {},
): Promise<RawResult> {
	return new Promise<RawResult>((resolve, reject) => {
		const payload = JSON.stringify({ body, options: { stream: 'http' } });
		const request = http.request(runUrl(credentials, flowId), {
			method: 'POST',
			agent: false,
			headers: {
				authorization: credentials.apiKey,
				'content-type': 'application/json',
				'content-length': Buffer.byteLength(payload),
			},
		});
		request.on('error', reject);
		request.on('response', (response) => {
			const decoder = new TextDecoder();
			const result: RawResult = { text: '', events: 0, bytes: 0, finalBytes: 0 };
			let unfinished: string[] = [];
			const line = (text: string) => {
				if (!text) return;
				const value = JSON.parse(text) as { tag?: string; data?: { token?: string } };
				if (value.tag === 'onNewToken') result.text += value.data?.token ?? '';
				if (value.tag) {
					result.events++;
					return;
				}
				result.finalBytes = Buffer.byteLength(text) + 1;
				hooks.afterFinal?.();
			};
			response.on('data', (chunk: Buffer) => {
				hooks.beforeChunk?.(result.bytes, chunk.length);
				result.bytes += chunk.length;
				const text = decoder.decode(chunk, { stream: true });
				let start = 0;
				for (let end = text.indexOf('\n'); end !== -1; end = text.indexOf('\n', start)) {
					const piece = text.slice(start, end);
					line(unfinished.length > 0 ? unfinished.join('') + piece : piece);
					unfinished = [];
					start = end + 1;
				}
				if (start < text.length) unfinished.push(text.slice(start));
			});
			response.on('end', () => resolve(result));
			response.on('error', reject);
		});
		request.end(payload);
	});
}
