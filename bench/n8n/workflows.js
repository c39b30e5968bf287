'use strict';
/**
 * The benchmark's workflows, each started by a production webhook (so it runs inside the n8n
 * server process): BotDojo nodes and what a user would build instead with n8n's own nodes.
 */
const CREDENTIAL = { botDojoApi: { id: 'botdojoBenchCred', name: 'BotDojo bench' } };
/** n8n's generic Header Auth credential holding the key: what a user without the package builds. */
const HEADER_AUTH = { httpHeaderAuth: { id: 'botdojoBenchHeader', name: 'BotDojo header' } };
const EXPORT_FLOW = 'flow_echo';
/** What a user writes in a Code node to read BotDojo's NDJSON stream: split, parse, join tokens. */
const SPLIT_NDJSON = `const out = [];
for (const item of $input.all()) {
  let text = '';
  let final = {};
  for (const line of item.json.data.split('\\n')) {
    if (!line) continue;
    const event = JSON.parse(line);
    if (event.tag === 'onNewToken') text += event.data.token;
    else if (!event.tag) final = event;
  }
  out.push({ json: { text, status: final.status, flowRequestId: final.id, flowSessionId: final.flow_session_id } });
}
return out;`;

let nextId = 0;
function node(name, type, typeVersion, parameters, extra = {}) {
	nextId += 1;
	return {
		id: `00000000-0000-4000-8000-${String(nextId).padStart(12, '0')}`,
		name,
		type,
		typeVersion,
		position: [nextId * 220, 300],
		parameters,
		...extra,
	};
}

function webhook(path, responseMode) {
	const parameters = { httpMethod: 'POST', path, responseMode, options: {} };
	if (responseMode === 'lastNode') parameters.responseData = 'firstEntryJson';
	return node('Webhook', 'n8n-nodes-base.webhook', 2.1, parameters, {
		webhookId: `bench-${path}`,
	});
}

/** Webhook → nodes in a chain. */
function workflow(id, name, nodes) {
	const connections = {};
	for (let i = 0; i + 1 < nodes.length; i++)
		connections[nodes[i].name] = { main: [[{ node: nodes[i + 1].name, type: 'main', index: 0 }]] };
	return { id, name, nodes, connections, settings: { executionOrder: 'v1' }, active: false };
}

function runFlowNode(tokens, options) {
	return node(
		'BotDojo Run Flow',
		'n8n-nodes-botdojo.botDojoRunFlow',
		1,
		{
			flowId: 'flow_big',
			inputMode: 'json',
			bodyJson: JSON.stringify({ tokens }),
			options,
		},
		{ credentials: CREDENTIAL },
	);
}

function apiUrl(target, endpoint) {
	return `${target.baseUrl}/accounts/${target.accountId}/projects/${target.projectId}/${endpoint}`;
}

/** n8n's HTTP Request node calling the API. The key goes in a plain Authorization header (stored
 *  in the workflow), or with `withCredential` through the BotDojo API credential as a predefined
 *  credential type (n8n signs each request with the credential's `authenticate`). */
function httpRequestNode(
	target,
	endpoint,
	body,
	options = {},
	{ withCredential = false, headerAuth = false } = {},
) {
	const auth = withCredential
		? { authentication: 'predefinedCredentialType', nodeCredentialType: 'botDojoApi' }
		: headerAuth
			? { authentication: 'genericCredentialType', genericAuthType: 'httpHeaderAuth' }
			: {
					sendHeaders: true,
					headerParameters: { parameters: [{ name: 'Authorization', value: target.apiKey }] },
				};
	const parameters = {
		method: 'POST',
		url: apiUrl(target, endpoint),
		...auth,
		sendBody: true,
		specifyBody: 'json',
		jsonBody: typeof body === 'string' ? body : JSON.stringify(body),
		options,
	};
	const extra = withCredential
		? { credentials: CREDENTIAL }
		: headerAuth
			? { credentials: HEADER_AUTH }
			: {};
	return node('HTTP Request', 'n8n-nodes-base.httpRequest', 4.2, parameters, extra);
}

/** Every workflow, by key; `path` is its webhook path. `runFlowOptions` sets Run Flow's options.
 *  `body` of httpRequestNode: an object sent as JSON, or a string as is (an expression). */
function benchWorkflows(
	target,
	{ smallTokens, largeTokens, largeRunFlowOptions, items = 200, rememberKeys = 10_000, itemsLimits = [] },
) {
	const list = {};
	const add = (key, nodes) => {
		const path = `bench-${key}`;
		nodes.unshift(webhook(path, key.startsWith('stream') ? 'streaming' : 'lastNode'));
		list[key] = { path, workflow: workflow(`bdBench${key.replace(/-/g, '')}`, `bench ${key}`, nodes) };
	};
	const tokenRun = (tokens) =>
		httpRequestNode(target, 'flows/flow_big/run', { body: { tokens }, options: { stream: 'http' } }, {
			response: { response: { responseFormat: 'text', outputPropertyName: 'data' } },
		});
	const code = () => node('Split NDJSON', 'n8n-nodes-base.code', 2, { jsCode: SPLIT_NDJSON });
	add('runflow-small', [runFlowNode(smallTokens, {})]);
	add('http-small', [tokenRun(smallTokens), code()]);
	add('runflow-large', [runFlowNode(largeTokens, largeRunFlowOptions)]);
	add('http-large', [tokenRun(largeTokens), code()]);
	add('stream-forward', [runFlowNode(smallTokens, { forwardTokens: true })]);
	add('stream-noforward', [runFlowNode(smallTokens, { forwardTokens: false })]);
	add('export-node', [
		node(
			'BotDojo Export Requests',
			'n8n-nodes-botdojo.botDojoExportRequests',
			1,
			{ operation: 'export', flowId: EXPORT_FLOW, returnAll: true, options: {} },
			{ credentials: CREDENTIAL },
		),
	]);
	// Export to a CSV file (issue 21 §1), and Items with a limit, to set beside it under a heap cap.
	const exportNode = (parameters) =>
		node(
			'BotDojo Export Requests',
			'n8n-nodes-botdojo.botDojoExportRequests',
			1.1,
			{ operation: 'export', flowId: EXPORT_FLOW, options: {}, ...parameters },
			{ credentials: CREDENTIAL },
		);
	add('export-csv', [exportNode({ output: 'csvFile', returnAll: true })]);
	for (const limit of itemsLimits)
		add(`export-items-${limit}`, [exportNode({ output: 'items', limit, simplify: false })]);
	add('export-http', [
		httpRequestNode(target, 'flow_requests/export', { params: [EXPORT_FLOW, null, 1000] }, {
			pagination: {
				pagination: {
					paginationMode: 'updateAParameterInEachRequest',
					parameters: {
						parameters: [
							{
								type: 'body',
								name: 'params',
								value: `={{ ["${EXPORT_FLOW}", $response.body.nextCursor, 1000] }}`,
							},
						],
					},
					paginationCompleteWhen: 'other',
					completeExpression: '={{ !$response.body.hasMore }}',
				},
			},
		}),
		node('Split Out', 'n8n-nodes-base.splitOut', 1, { fieldToSplitOut: 'results', options: {} }),
	]);
	// Many items (issue 10 §3): ITEMS questions made by a Set node and split into items, then
	// Run Flow on a 50 ms flow one at a time and 10 at once; the items alone, and n8n's HTTP
	// Request node (which sends every item's request at once, unbounded), for reference.
	const questions = () => [
		node('Questions', 'n8n-nodes-base.set', 3.4, {
			mode: 'raw',
			jsonOutput: JSON.stringify({ q: Array.from({ length: items }, (_, i) => `q${i}`) }),
			options: {},
		}),
		node('Split Out', 'n8n-nodes-base.splitOut', 1, { fieldToSplitOut: 'q', options: {} }),
	];
	const runEach = (concurrency) =>
		node(
			'BotDojo Run Flow',
			'n8n-nodes-botdojo.botDojoRunFlow',
			1,
			{ flowId: 'flow_delay50', message: '={{ $json.q }}', options: { concurrency } },
			{ credentials: CREDENTIAL },
		);
	add('items-only', questions());
	add('items-c1', [...questions(), runEach(1)]);
	add('items-c10', [...questions(), runEach(10)]);
	const httpEach = (auth) =>
		httpRequestNode(
			target,
			'flows/flow_delay50/run',
			'={{ JSON.stringify({ body: { text_input: $json.q } }) }}',
			{},
			auth,
		);
	add('items-http', [...questions(), httpEach({})]);
	// The same call with the key in the BotDojo API credential, as n8n advises for secrets.
	add('items-http-cred', [...questions(), httpEach({ withCredential: true })]);
	add('items-http-header', [...questions(), httpEach({ headerAuth: true })]);
	// Remember by Key at the cap (issue 19): the node's static data is imported with `keys`
	// conversations saved; the key comes from the webhook's query (?chat=…).
	const remembered = {};
	const day = Math.floor(Date.now() / 86_400_000);
	// Keys and session ids as long as chat session ids (UUIDs).
	const uuid = (i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
	for (let i = 0; i < rememberKeys; i++) remembered[uuid(i)] = `${day} ${uuid(rememberKeys + i)}`;
	const chatRun = (session) =>
		node(
			'BotDojo Run Flow',
			'n8n-nodes-botdojo.botDojoRunFlow',
			1,
			{ flowId: 'flow_echo', message: 'Hello', ...session, options: { streaming: false } },
			{ credentials: CREDENTIAL },
		);
	add('chat-new-session', [chatRun({})]);
	add('chat-remember', [
		chatRun({ sessionMode: 'remember', sessionKey: '={{ $json.query.chat }}' }),
	]);
	list['chat-remember'].workflow.staticData = {
		'node:BotDojo Run Flow': { remembered: { flow_echo: remembered } },
	};
	return list;
}

module.exports = { benchWorkflows, EXPORT_FLOW, CREDENTIAL, HEADER_AUTH };
