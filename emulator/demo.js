'use strict';
/**
 * The demo project `npm start` opens with: a few requests of flow_echo (one of them failed), a
 * session with two messages, yesterday's requests for the nightly export, and one document.
 */
const { iso } = require('./util');

/** [question, answer] of the demo's requests of yesterday. */
const DEMO_YESTERDAY = [
	['Quote "this", please', 'He said "yes", then left.'],
	['Line one\nLine two\r\nLine three', 'Two lines,\nas asked'],
	['Grüße aus Köln — 日本語 🎉', 'Ça va très bien, merci ✓'],
	['=HYPERLINK("http://example.com","click")', '@SUM(1+1)'],
	['+1 555 0100, call me', '-2 degrees\tand falling'],
];

/** @param {import('./types').Context} ctx */
function seedDemo(ctx) {
	const now = Date.now();
	ctx.store.seedFlowRequests('flow_echo', 5, {
		start: now - 3600000,
		stepMs: 60000,
		errorEvery: 5,
	});
	const session = ctx.store.createSession('flow_echo', {}, 'ses_demo');
	['Hello', 'What did I just say?'].forEach((text, i) => {
		const modified = iso(now - 600000 + i * 60000);
		ctx.store.addRecord({
			flow_id: 'flow_echo',
			flow_session_id: session.id,
			body: { text_input: text },
			response: { text_output: `Echo #${i + 1}: ${text}` },
			aiMessage: {
				id: `msg_demo_ai_${i + 1}`,
				date: modified,
				role: 'assistant',
				steps: [],
				content: `Echo #${i + 1}: ${text}`,
			},
			modified,
			version: '3',
			flow_history_id: 'fh_flow_echo_3',
		});
	});
	// Yesterday's requests (UTC) for the nightly export demo: text a CSV must escape (quotes,
	// commas, line breaks), non-ASCII letters, and cells a spreadsheet would run as formulas.
	const yesterday = new Date(now);
	yesterday.setUTCHours(0, 0, 0, 0);
	DEMO_YESTERDAY.forEach(([question, answer], i) => {
		const modified = iso(yesterday.getTime() - 86400000 + (9 + 2 * i) * 3600000);
		ctx.store.addRecord({
			flow_id: 'flow_echo',
			body: { text_input: question },
			response: { text_output: answer },
			aiMessage: {
				id: `msg_demo_y_${i + 1}`,
				date: modified,
				role: 'assistant',
				steps: [],
				content: answer,
			},
			modified,
		});
	});
	ctx.documents.put({
		fileName: 'welcome.txt',
		logicalPath: 'docs/welcome.txt',
		contentType: 'text/plain',
		data: Buffer.from('Welcome to the BotDojo emulator.\n'),
		meta: { demo: true },
	});
}

module.exports = { seedDemo };
