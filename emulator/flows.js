'use strict';
/**
 * Flows: the built-in flow definitions and defineFlow's checks. Running them is in run/.
 */

/**
 * @typedef {import('./types').ToolCall} ToolCall
 * @typedef {import('./types').FlowDef} FlowDef
 * @typedef {FlowDef & { id: string, releases: string[], defaultRelease: string }} Flow
 */

/** A human reading pace: about 30 tokens a second. */
const TYPING_DELAY_MS = 33;

/** ms to wait, from `body.waitMs` (number or numeric string) or a numeric `text_input`; default 1000. @param {any} body */
function waitMsOf(body) {
	const raw = body && body.waitMs !== undefined ? body.waitMs : body && body.text_input;
	const n = Number(raw);
	return raw !== undefined && raw !== '' && Number.isFinite(n) && n >= 0 ? n : 1000;
}

/** Split an answer into tokens whose concatenation is exactly the answer. @param {string} text */
function splitTokens(text) {
	return text.match(/^\s+|\S+\s*/g) || [];
}

/** @param {any} body */
function textOf(body) {
	return typeof body.text_input === 'string' ? body.text_input : JSON.stringify(body);
}

/** @param {number} n */
function bigTokens(n) {
	const out = new Array(n);
	for (let i = 0; i < n; i++) out[i] = `tok${String(i).padStart(6, '0')} `;
	return out;
}

/** A search that finds 2 hits and a calculator that fails: the tools of flow_tools and flow_tools_real. */
const searchAndCalculator = {
	/** @param {any} body @returns {ToolCall[]} */
	tools: (body) => [
		{ toolName: 'search', input: { query: textOf(body) }, output: { hits: 2 } },
		{ toolName: 'calculator', input: { expression: '1/0' }, error: 'Division by zero' },
	],
	/** @param {any} body */
	answer: (body) =>
		`I searched for "${textOf(body)}" and found 2 hits; the calculator failed (Division by zero).`,
};

/**
 * flow_canvas's answer, cut so that both canvas tags and the `{"canvasData"` opening are split
 * across tokens, as a model writing them token by token would.
 */
const CANVAS_TOKENS = [
	'Here is the chart:\n<|dojo',
	'-canvas|>{"canvasType": "dojo-canvas", ',
	'"canvasData": {"kind": "bar", "values": [3, 5]}}<|dojo-can',
	'vas|>\nAnd the table:\n{"canva',
	'sData": {"rows": 2, "note": "a } in text"}}',
	'\nThat is all.',
];

/** The name a message gives ("My name is Ana", "call me Ana"), if it gives one. @param {string} text */
function nameGivenIn(text) {
	const match = /\b(?:my name is|my name's|call me)\s+([\p{L}][\p{L}'-]*)/iu.exec(text);
	return match ? match[1] : undefined;
}

/**
 * flow_memory's answer: what it remembers of the session, so that a person chatting sees memory
 * work (the name from an earlier message of the same session, never from another session).
 * @param {any} body @param {import('./types').FlowSessionView} session
 */
function memoryAnswer(body, session) {
	const said = textOf(body);
	const earlier = session.history
		.map((record) => record.userMessage && record.userMessage.content)
		.filter((content) => typeof content === 'string');
	const given = nameGivenIn(said);
	if (given) {
		return `Nice to meet you, ${given}! I will remember your name in this chat: ask me "What is my name?" in your next message.`;
	}
	if (/\bwhat(?:'s| is) my name\b/i.test(said)) {
		const names = earlier.map(nameGivenIn).filter(Boolean);
		return names.length > 0
			? `Your name is ${names[names.length - 1]}. You told me earlier in this chat, which I remember (${earlier.length} earlier message${earlier.length === 1 ? '' : 's'}).`
			: 'I do not know your name yet: no earlier message of this chat told me. Say "My name is …", then ask again.';
	}
	return `You said: ${said}. This is message ${session.runNumber} of this chat. Tell me "My name is …", then ask "What is my name?" to see what I remember.`;
}

/** @returns {Record<string, FlowDef>} */
function builtinFlows() {
	return {
		flow_echo: {
			releases: ['1', '2', '3'],
			answer: (body, session) => `Echo #${session.runNumber}: ${textOf(body)}`,
		},
		flow_tools: {
			releases: ['1'],
			...searchAndCalculator,
		},
		flow_error: {
			releases: ['1'],
			status: 'error',
			errorMessage: 'The model provider returned an error',
			answer: () => 'Let me think about',
		},
		flow_slow: {
			releases: ['1'],
			tokenDelayMs: 100,
			answer: () => 'one two three four five six seven eight nine ten',
		},
		flow_delay50: {
			releases: ['1'],
			delayMs: 50,
			answer: () => 'ok',
		},
		flow_big: {
			releases: ['1'],
			tokens: (body) => {
				const n = Number.isInteger(body && body.tokens) && body.tokens >= 0 ? body.tokens : 100000;
				return bigTokens(n);
			},
		},
		flow_state: {
			releases: ['1'],
			answer: (_body, session) => `Session state: ${JSON.stringify(session.sessionState)}`,
		},
		flow_tools_real: {
			releases: ['1'],
			shape: 'real',
			...searchAndCalculator,
		},
		flow_agent: {
			releases: ['1'],
			shape: 'real',
			toolArgumentTokens: true,
			preambleTokens: ['Let ', 'me ', 'look ', 'that ', 'up. '],
			tools: (body) => [
				{ toolName: 'search', input: { query: textOf(body) }, output: { hits: 2 } },
			],
			answer: (body) => `Found 2 hits for "${textOf(body)}".`,
		},
		flow_sdk: {
			releases: ['1'],
			shape: 'sdk',
			toolArgumentTokens: true,
			tools: (body) => [
				{ toolName: 'search', input: { query: textOf(body) }, output: { hits: 2 } },
				{ toolName: 'chart', input: { kind: 'bar' }, output: { drawn: true }, viaCanvas: true },
			],
			answer: (body) => `Found 2 hits for "${textOf(body)}" and drew a chart.`,
		},
		flow_canvas: {
			releases: ['1'],
			shape: 'sdk',
			tokens: () => CANVAS_TOKENS,
			answer: () => CANVAS_TOKENS.join(''),
			suggestedQuestions: ['Show the values as a table', 'What do the values mean?'],
		},
		flow_wait: {
			releases: ['1'],
			delayMs: waitMsOf,
			answer: (body) => `Waited ${waitMsOf(body)} ms`,
		},
		flow_memory: {
			releases: ['1'],
			tokenDelayMs: TYPING_DELAY_MS,
			answer: memoryAnswer,
		},
		flow_typing: {
			releases: ['1'],
			tokenDelayMs: TYPING_DELAY_MS,
			answer: (body) =>
				`You said: ${textOf(body)}. ` +
				'This answer arrives word by word at about the pace a person reads, so that a chat ' +
				'window shows it growing. It is long enough to take a few seconds: one, two, three, ' +
				'four, five, six, seven, eight, nine, ten, eleven, twelve, thirteen, fourteen, fifteen, ' +
				'sixteen, seventeen, eighteen, nineteen, twenty, twenty-one, twenty-two, twenty-three, ' +
				'twenty-four, twenty-five, twenty-six, twenty-seven, twenty-eight, twenty-nine, thirty. ' +
				'A streaming node forwards each word as it comes, and the last line of the stream still ' +
				'carries the whole answer, so nothing is lost if a word was missed on the way.',
		},
	};
}

/**
 * @param {string} id
 * @param {FlowDef} def
 * @returns {Flow}
 */
function normalizeFlow(id, def) {
	if (!def || (typeof def.answer !== 'function' && typeof def.tokens !== 'function')) {
		throw new Error(`defineFlow(${id}): def needs answer(body, session, options) or tokens(body)`);
	}
	if (def.shape !== undefined && !['legacy', 'real', 'sdk'].includes(def.shape)) {
		throw new Error(`defineFlow(${id}): shape must be 'legacy', 'real' or 'sdk'`);
	}
	const releases =
		Array.isArray(def.releases) && def.releases.length > 0 ? def.releases.map(String) : ['1'];
	return { ...def, id, releases, defaultRelease: releases[releases.length - 1] };
}

module.exports = { builtinFlows, normalizeFlow, splitTokens, textOf, bigTokens };
