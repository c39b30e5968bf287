/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals, no-console -- benchmark code: runs in jest, never in n8n; it prints its figures */
/**
 * Many items at once (issue 10 §3): 200 items against a 50 ms flow (flow_delay50), through
 * BotDojo Run Flow in n8n's engine at concurrency 10 vs one at a time. Two references run the
 * same pairs: n8n's floor (a bare node that only evaluates the message and calls n8n's
 * authenticated request helper, which every community node must use) and raw `http` requests.
 * The emulator runs in a child process, so the process CPU measured is the client's (engine +
 * node) alone. Alternating rounds on the shared harness.
 */
import * as http from 'node:http';
import type { IExecuteFunctions, INodeExecutionData, INodeType } from 'n8n-workflow';

import { runPool } from '../nodes/shared/execution';
import { runNode, type BotDojoCredentialData } from '../test/helpers/engine';
import { nodeTypes, PACKAGE } from '../test/helpers/nodeTypes';
import { alternate, machine, report, startChildEmulator, type Sample } from './lib';

const ITEMS = Number(process.env.ITEMS ?? 200);
const CONCURRENCY = 10;
const FLOW = 'flow_delay50';

/** The least any node pays per item in n8n: one expression and one authenticated request. */
class HelperFloor implements INodeType {
	description = {
		displayName: 'Helper floor',
		name: 'helperFloor',
		group: ['transform'],
		version: 1,
		description: 'Benchmark reference',
		defaults: { name: 'Helper floor' },
		inputs: ['main'],
		outputs: ['main'],
		credentials: [{ name: 'botDojoApi', required: true }],
		properties: [
			{ displayName: 'Message', name: 'message', type: 'string', default: '' },
			{ displayName: 'Concurrency', name: 'concurrency', type: 'number', default: 1 },
		],
	} as INodeType['description'];

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const { baseUrl, accountId, projectId } = await this.getCredentials('botDojoApi');
		const url = `${baseUrl}/accounts/${accountId}/projects/${projectId}/flows/${FLOW}/run`;
		const concurrency = this.getNodeParameter('concurrency', 0) as number;
		const out = await runPool(
			this.getInputData().length,
			concurrency,
			async (i) => ({
				json: await this.helpers.httpRequestWithAuthentication.call(this, 'botDojoApi', {
					method: 'POST',
					url,
					json: true,
					body: { body: { text_input: this.getNodeParameter('message', i) }, options: {} },
				}),
			}),
			() => false,
		);
		return [out];
	}
}
nodeTypes.register(`${PACKAGE}.helperFloor`, new HelperFloor());

async function throughNode(
	credentials: BotDojoCredentialData,
	concurrency: number,
	type = 'botDojoRunFlow',
) {
	const items = Array.from({ length: ITEMS }, (_, i) => ({ json: { q: `q${i}` } }));
	const options = type === 'botDojoRunFlow' ? { options: { concurrency } } : { concurrency };
	const { items: out, error } = await runNode({
		node: {
			type,
			parameters: { flowId: FLOW, message: '={{ $json.q }}', ...options } as never,
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
		const floor = await alternate(
			() => throughNode(emulator.credentials, CONCURRENCY, 'helperFloor'),
			() => throughNode(emulator.credentials, 1, 'helperFloor'),
			{ between: reset },
		);
		const raw = await alternate(
			() => rawLoop(emulator.credentials, CONCURRENCY),
			() => rawLoop(emulator.credentials, 1),
			{ between: reset },
		);
		for (const pair of [...node, ...floor, ...raw]) {
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
				report(
					`n8n's floor: message expression + httpRequestWithAuthentication, ${ITEMS} items`,
					floor,
					{
						names,
						figures,
					},
				),
				'',
				report(`Raw http requests, ${ITEMS} items, ${FLOW}`, raw, { names, figures }),
				`Target: node wall ratio concurrency ${CONCURRENCY} ÷ one at a time ≤ 0.125.`,
			].join('\n'),
		);
	} finally {
		await emulator.close();
	}
});
