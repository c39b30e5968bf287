'use strict';
/**
 * A small OpenAI-compatible Chat Completions server on 127.0.0.1 for the AI Agent check. It plays
 * a model that uses one tool: asked with no tool result yet, it calls the BotDojo Run Flow tool
 * (whatever name n8n gave it) with QUESTION; once the tool has answered, it replies with a text
 * that quotes the tool's answer. Streams (SSE) when asked to, as the AI Agent does.
 */
const http = require('node:http');

const QUESTION = 'What is the refund policy for order 42?';

/** The text a tool result carries: Run Flow's `text` field when it is JSON, else the whole of it. */
function toolAnswer(content) {
	const raw = Array.isArray(content) ? content.map((part) => part.text ?? '').join('') : content;
	try {
		const parsed = JSON.parse(raw);
		const record = Array.isArray(parsed) ? parsed[0] : parsed;
		if (typeof record?.text === 'string') return record.text;
		if (typeof record?.response === 'string') return toolAnswer(record.response);
	} catch {
		// not JSON: quote it as it is
	}
	return String(raw);
}

/** QUESTION in every string field of a tool's schema; n8n's human review for tool calls nests
 *  the tool's own fields in `toolParameters` (and its own in `hitlParameters`). */
function argumentsFor(schema) {
	const fields = Object.entries(schema?.properties ?? {});
	return Object.fromEntries(
		fields.map(([name, field]) => [name, field.type === 'object' ? argumentsFor(field) : QUESTION]),
	);
}

/** The assistant message for this conversation: a tool call first, then the final text. */
function nextMessage(body) {
	const messages = body.messages ?? [];
	const toolResult = [...messages].reverse().find((m) => m.role === 'tool');
	if (toolResult) {
		return { role: 'assistant', content: `BotDojo says: ${toolAnswer(toolResult.content)}` };
	}
	const tool = (body.tools ?? []).find((t) => /botdojo|run_?flow/i.test(t.function?.name ?? ''));
	if (!tool) return { role: 'assistant', content: 'I have no BotDojo tool to ask.' };
	const args = argumentsFor(tool.function.parameters);
	return {
		role: 'assistant',
		content: null,
		tool_calls: [
			{
				id: 'call_botdojo_1',
				type: 'function',
				function: { name: tool.function.name, arguments: JSON.stringify(args) },
			},
		],
	};
}

function completion(message, model) {
	return {
		id: 'chatcmpl-fake',
		object: 'chat.completion',
		created: Math.floor(Date.now() / 1000),
		model,
		choices: [
			{
				index: 0,
				message,
				finish_reason: message.tool_calls ? 'tool_calls' : 'stop',
			},
		],
		usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 },
	};
}

/** The same message as SSE chunks: role, then the content word by word or the tool call. */
function streamChunks(message, model) {
	const base = { id: 'chatcmpl-fake', object: 'chat.completion.chunk', created: 0, model };
	const chunk = (delta, finish = null) => ({
		...base,
		choices: [{ index: 0, delta, finish_reason: finish }],
	});
	const chunks = [chunk({ role: 'assistant', content: '' })];
	if (message.tool_calls) {
		chunks.push(
			chunk({ tool_calls: message.tool_calls.map((call, index) => ({ index, ...call })) }),
		);
		chunks.push(chunk({}, 'tool_calls'));
	} else {
		for (const word of message.content.match(/\S+\s*/g)) chunks.push(chunk({ content: word }));
		chunks.push(chunk({}, 'stop'));
	}
	return chunks;
}

async function startFakeOpenAi() {
	const requests = [];
	const server = http.createServer((req, res) => {
		let raw = '';
		req.on('data', (chunk) => (raw += chunk));
		req.on('end', () => {
			const body = raw ? JSON.parse(raw) : {};
			requests.push({ method: req.method, url: req.url, body });
			if (req.method === 'GET' && req.url.endsWith('/models')) {
				res.writeHead(200, { 'Content-Type': 'application/json' });
				res.end(JSON.stringify({ object: 'list', data: [{ id: 'gpt-4o-mini', object: 'model' }] }));
				return;
			}
			if (!req.url.endsWith('/chat/completions')) {
				res.writeHead(404, { 'Content-Type': 'application/json' });
				res.end(JSON.stringify({ error: { message: `not faked: ${req.method} ${req.url}` } }));
				return;
			}
			const message = nextMessage(body);
			if (body.stream) {
				res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
				for (const chunk of streamChunks(message, body.model))
					res.write(`data: ${JSON.stringify(chunk)}\n\n`);
				res.end('data: [DONE]\n\n');
				return;
			}
			res.writeHead(200, { 'Content-Type': 'application/json' });
			res.end(JSON.stringify(completion(message, body.model)));
		});
	});
	await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address();
	return {
		url: `http://127.0.0.1:${port}/v1`,
		requests,
		close: () => new Promise((resolve) => server.close(resolve)),
	};
}

module.exports = { startFakeOpenAi, QUESTION };
