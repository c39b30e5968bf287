'use strict';
/** POSTs JSON and reads the answer as it arrives, one JSON line at a time, noting arrival times. */

/**
 * `onLine(line, response)` sees each line as it arrives (e.g. to act mid-stream).
 * @returns {Promise<{ status: number, lines: Array<{ text: string, json?: any, at: number }>, endedAt: number }>}
 */
async function postAndReadLines(url, body, { timeoutMs = 60_000, onLine = () => undefined } = {}) {
	const response = await fetch(url, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify(body),
		signal: AbortSignal.timeout(timeoutMs),
	});
	const lines = [];
	const decoder = new TextDecoder();
	let pending = '';
	const take = (text, at) => {
		if (!text.trim()) return;
		let json;
		try {
			json = JSON.parse(text);
		} catch {
			json = undefined;
		}
		lines.push({ text, json, at });
		onLine(lines[lines.length - 1], response);
	};
	for await (const chunk of response.body) {
		const at = Date.now();
		pending += decoder.decode(chunk, { stream: true });
		let newline;
		while ((newline = pending.indexOf('\n')) >= 0) {
			take(pending.slice(0, newline), at);
			pending = pending.slice(newline + 1);
		}
	}
	const endedAt = Date.now();
	take(pending + decoder.decode(), endedAt);
	return { status: response.status, lines, endedAt };
}

module.exports = { postAndReadLines };
