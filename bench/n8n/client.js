'use strict';
/** Calls a webhook of the benchmark and times its answer, reading streamed answers line by line. */
const http = require('node:http');
const zlib = require('node:zlib');
const { performance } = require('node:perf_hooks');

/** The longest silence of a call (a 1M-record CSV export answers only at its end, minutes later). */
const IDLE_MS = 15 * 60 * 1000;

/**
 * POSTs `{}` to the URL. Returns { status, ms, json } for a JSON answer; for a streamed one
 * (`stream`), also the time of the first `item` chunk of `nodeName` (firstItemMs, and firstItemAt
 * in Date.now() time to compare with the emulator's log), the number of items and their text.
 */
function callWebhook(url, { gzip = false, stream = false, nodeName } = {}) {
	return new Promise((resolve, reject) => {
		const started = performance.now();
		const request = http.request(url, {
			method: 'POST',
			headers: {
				'content-type': 'application/json',
				...(gzip ? { 'accept-encoding': 'gzip' } : {}),
			},
		});
		request.on('error', reject);
		// Bounded: an n8n that stalls without closing the connection must not hold the bench.
		request.setTimeout(IDLE_MS, () =>
			request.destroy(new Error(`no data from n8n for ${IDLE_MS / 1000} s`)),
		);
		request.on('response', (response) => {
			const encoding = response.headers['content-encoding'];
			const body = encoding === 'gzip' ? response.pipe(zlib.createGunzip()) : response;
			const result = { status: response.statusCode, encoding: encoding ?? 'identity', items: 0 };
			const parts = [];
			let pending = '';
			if (stream) body.setEncoding('utf8');
			const onLine = (line) => {
				if (!line.trim()) return;
				let chunk;
				try {
					chunk = JSON.parse(line);
				} catch {
					return;
				}
				if (chunk.type !== 'item' || chunk.metadata?.nodeName !== nodeName) return;
				if (result.items === 0) {
					result.firstItemMs = performance.now() - started;
					result.firstItemAt = Date.now();
				}
				result.items += 1;
				parts.push(typeof chunk.content === 'string' ? chunk.content : '');
			};
			body.on('data', (data) => {
				if (!stream) return parts.push(data);
				pending += data;
				const lines = pending.split('\n');
				pending = lines.pop();
				lines.forEach(onLine);
			});
			body.on('error', reject);
			body.on('end', () => {
				result.ms = performance.now() - started;
				if (stream) {
					onLine(pending);
					result.text = parts.join('');
				} else {
					const text = Buffer.concat(parts).toString('utf8');
					try {
						result.json = JSON.parse(text);
					} catch {
						result.json = undefined;
						result.raw = text.slice(0, 500);
					}
				}
				resolve(result);
			});
		});
		request.end('{}');
	});
}

module.exports = { callWebhook };
