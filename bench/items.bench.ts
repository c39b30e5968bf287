/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals, no-console -- benchmark code: runs in jest, never in n8n; it prints its figures */
/**
 * Many items at once (issue 10 §3): 200 items against a 50 ms flow (flow_delay50), through
 * BotDojo Run Flow in n8n's engine at concurrency 10 vs one at a time, and the same with raw
 * `http` requests for reference; the emulator runs in a child process, so the process CPU
 * measured is the client's (engine + node) alone. Alternating rounds on the shared harness.
 */
import * as http from 'node:http';

import { runNode, type BotDojoCredentialData } from '../test/helpers/engine';
import { alternate, machine, report, startChildEmulator, type Sample } from './lib';

const ITEMS = Number(process.env.ITEMS ?? 200);
const CONCURRENCY = 10;
const FLOW = 'flow_delay50';

async function throughNode(credentials: BotDojoCredentialData, concurrency: number) {
	const items = Array.from({ length: ITEMS }, (_, i) => ({ json: { q: `q${i}` } }));
	const { items: out, error } = await runNode({
		node: {
			type: 'botDojoRunFlow',
			parameters: { flowId: FLOW, message: '={{ $json.q }}', options: { concurrency } } as never,
		},
		credentials: { main: credentials },
		items,
	});
	if (error) throw new Error(`node run failed: ${error.message}`);
	const complete = out.filter((item) => item.json.status === 'complete').length;
	return { items: out.length, complete };
}

/** One blocking run request with Node's own `http`, the body read whole and parsed. */
function rawRun(credentials: BotDojoCredentialData, text: string): Promise<unknown> {
	const { baseUrl, accountId, projectId, apiKey } = credentials;
	const url = `${baseUrl}/accounts/${accountId}/projects/${projectId}/flows/${FLOW}/run`;
	const payload = JSON.stringify({ body: { text_input: text } });
	return new Promise((resolve, reject) => {
		const request = http.request(url, {
			method: 'POST',
			headers: {
				authorization: apiKey,
				'content-type': 'application/json',
				'content-length': Buffer.byteLength(payload),
			},
		});
		request.on('error', reject);
		request.on('response', (response) => {
			const chunks: Buffer[] = [];
			response.on('data', (chunk: Buffer) => chunks.push(chunk));
			response.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString('utf8'))));
			response.on('error', reject);
		});
		request.end(payload);
	});
}

async function rawLoop(credentials: BotDojoCredentialData, concurrency: number) {
	let next = 0;
	let complete = 0;
	await Promise.all(
		Array.from({ length: concurrency }, async () => {
			while (next < ITEMS) {
				const answer = (await rawRun(credentials, `q${next++}`)) as { status?: string };
				if (answer.status === 'complete') complete++;
			}
		}),
	);
	return { items: ITEMS, complete };
}

test(`${ITEMS} items against a 50 ms flow: concurrency ${CONCURRENCY} vs one at a time`, async () => {
	const emulator = await startChildEmulator();
	try {
		const reset = () => emulator.reset();
		const perItemMs = (sample: Sample) => sample.cpuMs / ITEMS;
		const figures: Array<[string, (s: Sample) => number, number]> = [
			['CPU ms per item', perItemMs, 2],
		];
		const node = await alternate(
			() => throughNode(emulator.credentials, CONCURRENCY),
			() => throughNode(emulator.credentials, 1),
			{ between: reset },
		);
		const raw = await alternate(
			() => rawLoop(emulator.credentials, CONCURRENCY),
			() => rawLoop(emulator.credentials, 1),
			{ between: reset },
		);
		for (const pair of [...node, ...raw]) {
			if (pair.candidate.counts.complete !== ITEMS || pair.baseline.counts.complete !== ITEMS) {
				throw new Error('a run lost items');
			}
		}
		const names = { candidate: `concurrency ${CONCURRENCY}`, baseline: 'one at a time' };
		console.log(
			[
				machine(),
				report(`BotDojo Run Flow, ${ITEMS} items, ${FLOW}`, node, { names, figures }),
				'',
				report(`Raw http requests, ${ITEMS} items, ${FLOW}`, raw, { names, figures }),
				`Target: node wall ratio concurrency ${CONCURRENCY} ÷ one at a time ≤ 0.125.`,
			].join('\n'),
		);
	} finally {
		await emulator.close();
	}
});
