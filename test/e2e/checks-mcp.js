'use strict';
/**
 * Issue 21 §3, demo 9: BotDojo flows as MCP tools. The official MCP TypeScript SDK's client
 * (Streamable HTTP) talks to n8n's MCP Server Trigger of the published demo: it lists the tools,
 * calls them, and gets errors back as MCP error results. Every call is bounded by the client's
 * request timeout, so a tool that hangs fails the test instead of stalling it.
 */
const assert = require('node:assert/strict');

const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { SSEClientTransport } = require('@modelcontextprotocol/sdk/client/sse.js');
const {
	StreamableHTTPClientTransport,
} = require('@modelcontextprotocol/sdk/client/streamableHttp.js');

const { mcpAddress } = require('../../scripts/lib/demo-setup');
const { testWhere, workflowMissingById } = require('./n8nFeatures');

const DEMO_ID = 'bdDemoMcp';
const UNKNOWN_FLOW_ID = 'bdE2eMcpUnknownFlow';
/** Longer than any answer here takes, far shorter than the node's 60 s Retry-After bound. */
const CALL_TIMEOUT = { timeout: 20_000 };

/** The production URL of a workflow's MCP Server Trigger: the address `npm start` prints. */
function mcpUrl(env, workflowId) {
	const workflow = env.workflows.find((w) => w.id === workflowId);
	return new URL(mcpAddress(env.n8n.url, [workflow]));
}

const NOT_REGISTERED_RETRIES = 40;

/** Connects the SDK client; retries (boundedly) while n8n has not registered the webhook yet. */
async function connect(env, workflowId) {
	for (let attempt = 1; ; attempt++) {
		const client = new Client({ name: 'botdojo-e2e', version: '1.0.0' });
		try {
			await client.connect(
				new StreamableHTTPClientTransport(mcpUrl(env, workflowId)),
				CALL_TIMEOUT,
			);
			return client;
		} catch (error) {
			if (error.code !== 404 || attempt >= NOT_REGISTERED_RETRIES) throw error;
			await new Promise((resolve) => setTimeout(resolve, 250));
		}
	}
}

const textOf = (result) => result.content.map((part) => part.text ?? '').join('');

module.exports = function registerMcpChecks(env) {
	// MCP Server Trigger 2.1: an n8n without it lists these checks as not applicable.
	const test = testWhere(workflowMissingById(DEMO_ID) ?? workflowMissingById(UNKNOWN_FLOW_ID));
	/**
	 * Setup published both workflows; n8n registers a trigger's webhooks one by one after it
	 * answers, so a client that comes right after may meet a 404 for a moment.
	 */
	const assertBothPublished = () => {
		env.assertPublished(DEMO_ID);
		env.assertPublished(UNKNOWN_FLOW_ID);
	};
	/** The demo's client, connected once for the checks that use it. */
	let demoClient;
	const demo = async () => {
		assertBothPublished();
		demoClient ??= await connect(env, DEMO_ID);
		return demoClient;
	};

	test(
		'demo 9 (MCP): an MCP client sees both BotDojo tools, with their descriptions and $fromAI arguments',
		{ timeout: 60_000 },
		async () => {
			const { tools } = await (await demo()).listTools(undefined, CALL_TIMEOUT);
			const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool]));
			assert.deepEqual(Object.keys(byName).sort(), ['ask_support_flow', 'search_handbook']);
			const ask = byName.ask_support_flow;
			assert.match(ask.description, /^Asks the company's BotDojo support flow a question/);
			assert.equal(ask.inputSchema.type, 'object');
			assert.equal(ask.inputSchema.properties.message.type, 'string');
			assert.match(ask.inputSchema.properties.message.description, /customer question/);
			assert.deepEqual(ask.inputSchema.required, ['message']);
			assert.deepEqual(Object.keys(byName.search_handbook.inputSchema.properties), ['source']);
			env.log(`MCP tools: ${JSON.stringify(tools)}`);
		},
	);

	test(
		'demo 9 (MCP): an older client on the SSE transport sees the same tools at the same URL',
		{ timeout: 60_000 },
		async () => {
			assertBothPublished();
			const client = new Client({ name: 'botdojo-e2e-sse', version: '1.0.0' });
			await client.connect(new SSEClientTransport(mcpUrl(env, DEMO_ID)), CALL_TIMEOUT);
			try {
				const { tools } = await client.listTools(undefined, CALL_TIMEOUT);
				assert.deepEqual(tools.map((tool) => tool.name).sort(), [
					'ask_support_flow',
					'search_handbook',
				]);
			} finally {
				await client.close();
			}
		},
	);

	test(
		'demo 9 (MCP): calling the Run Flow tool runs the flow exactly once with the argument and returns its answer',
		{ timeout: 60_000 },
		async () => {
			const client = await demo();
			const question = `Where is my order ${Date.now()}?`;
			const mark = env.emu.requests.length;
			const result = await client.callTool(
				{ name: 'ask_support_flow', arguments: { message: question } },
				undefined,
				CALL_TIMEOUT,
			);
			assert.notEqual(result.isError, true, JSON.stringify(result));
			assert.ok(textOf(result).includes(`Echo #1: ${question}`), JSON.stringify(result));
			env.log(`MCP tool result: ${textOf(result)}`);
			const runs = env.requestsSince(mark, 'run');
			assert.equal(runs.length, 1, 'BotDojo received exactly one run');
			assert.equal(runs[0].body.body.text_input, question);
			assert.ok(runs[0].path.includes('/flows/flow_echo/run'), runs[0].path);
		},
	);

	test(
		'demo 9 (MCP): the Query Index tool returns the chunks of the document the client names',
		{ timeout: 60_000 },
		async () => {
			const mark = env.emu.requests.length;
			const result = await (
				await demo()
			).callTool(
				{ name: 'search_handbook', arguments: { source: 'handbook.pdf' } },
				undefined,
				CALL_TIMEOUT,
			);
			assert.notEqual(result.isError, true, JSON.stringify(result));
			const ids = [...textOf(result).matchAll(/"id":"(chk_\d+)"/g)].map((m) => m[1]);
			assert.deepEqual(ids, ['chk_001', 'chk_002', 'chk_003']);
			const [query] = env.requestsSince(mark, 'queryMetadata');
			assert.deepEqual(query.body.params, ['idx_docs', { source: 'handbook.pdf' }]);
		},
	);

	test(
		'MCP: a Run Flow tool on an unknown flow answers with an MCP error result carrying the node message',
		{ timeout: 60_000 },
		async () => {
			assertBothPublished();
			const client = await connect(env, UNKNOWN_FLOW_ID);
			try {
				const mark = env.emu.requests.length;
				const result = await client.callTool(
					{ name: 'ask_missing_flow', arguments: { message: 'Hello?' } },
					undefined,
					CALL_TIMEOUT,
				);
				assert.equal(result.isError, true, JSON.stringify(result));
				assert.match(textOf(result), /BotDojo could not find it: .*flow_missing/);
				env.log(`MCP error result (unknown flow): ${textOf(result)}`);
				assert.equal(env.requestsSince(mark, 'run').length, 1);
			} finally {
				await client.close();
			}
		},
	);

	test(
		'MCP: a Run Flow tool still rate-limited past its wait answers at once with the 429 message, and ran nothing twice',
		{ timeout: 60_000 },
		async () => {
			const client = await demo();
			// BotDojo asks for 2 minutes: more than the node's 60 s bound, so it gives up at once.
			env.emu.injectFault('429', { endpoint: 'run', retryAfter: 120 });
			const mark = env.emu.requests.length;
			const result = await client.callTool(
				{ name: 'ask_support_flow', arguments: { message: 'Rate limited?' } },
				undefined,
				CALL_TIMEOUT,
			);
			assert.equal(result.isError, true, JSON.stringify(result));
			assert.match(textOf(result), /BotDojo is limiting the request rate \(429\)/);
			assert.match(textOf(result), /asked to wait 120 s/);
			env.log(`MCP error result (429): ${textOf(result)}`);
			const runs = env.requestsSince(mark, 'run');
			assert.deepEqual(
				runs.map((r) => r.status),
				[429],
				'one request, refused; nothing sent again',
			);
			await client.close();
			demoClient = undefined;
		},
	);
};
