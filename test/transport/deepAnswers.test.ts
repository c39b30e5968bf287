/**
 * Any JSON BotDojo sends gives a worded error with its status and no key, however deeply it
 * nests: nothing that reads an answer recurses without a bound (an error answer nested deeper
 * than 64 levels is quoted as text; an answer too deep to write out says so).
 */
import { runNode } from '../helpers/engine';
import { API_KEY, useScriptedServer } from './scriptedServer';

const botdojo = useScriptedServer();

const getStatus = {
	type: 'botDojoQueryIndex',
	parameters: { operation: 'getStatus', indexId: 'idx_1' },
};

function answering(status: number, body: string) {
	botdojo.answer = (_, res) => {
		res.writeHead(status, { 'content-type': 'application/json' });
		res.end(body);
	};
}

describe('deeply nested answers', () => {
	it('a 401 of [ × 30,000 (the key inside): the 401 error, no key', async () => {
		answering(401, `${'['.repeat(30_000)}${JSON.stringify(API_KEY)}${']'.repeat(30_000)}`);
		const { error } = await runNode({ node: getStatus, credentials: botdojo.credentials });
		expect(error?.message).toBe('BotDojo rejected the API key (401)');
		expect(error?.description).toMatch(/^BotDojo said: "\[\[\[/);
		expect(JSON.stringify(error)).not.toContain(API_KEY);
	});

	it('a 401 of {"error": × 7,000 (the key inside): the 401 error, no key', async () => {
		const said = JSON.stringify(`bad key ${API_KEY}`);
		answering(401, `${'{"error":'.repeat(7_000)}${said}${'}'.repeat(7_000)}`);
		const { error } = await runNode({ node: getStatus, credentials: botdojo.credentials });
		expect(error?.message).toBe('BotDojo rejected the API key (401)');
		expect(JSON.stringify(error)).not.toContain(API_KEY);
	});

	it('a 200 answer of [ × 1M: the wrong-shape error for the endpoint', async () => {
		answering(200, `${'['.repeat(1_000_000)}${']'.repeat(1_000_000)}`);
		const { error } = await runNode({ node: getStatus, credentials: botdojo.credentials });
		expect(error?.message).toBe(
			"BotDojo's answer to indexes/getStatus is not what that endpoint returns: expected an object, got an array",
		);
		expect(error?.description).toContain('The answer began: (an array nested too deeply to show)');
	});
});
