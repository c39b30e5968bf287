'use strict';
/**
 * A small SMTP server on 127.0.0.1 for the human review check: it accepts every mail n8n's Send
 * Email node sends (no TLS, no login; the credential turns STARTTLS off) and keeps its HTML body,
 * decoded, so that the check can read the links a reviewer would click.
 */
const net = require('node:net');

/** A MIME part's body decoded by its Content-Transfer-Encoding (nodemailer: QP, base64, 7bit). */
function decodeBody(headers, body) {
	const encoding = /^content-transfer-encoding:\s*(\S+)/im.exec(headers)?.[1]?.toLowerCase();
	if (encoding === 'base64')
		return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
	if (encoding !== 'quoted-printable') return body;
	const bytes = body
		.replace(/=\r?\n/g, '')
		.replace(/=([0-9A-F]{2})/gi, (_, hex) => String.fromCharCode(parseInt(hex, 16)));
	return Buffer.from(bytes, 'latin1').toString('utf8');
}

/** The HTML of a raw message, whether it is the whole message or one part of a multipart one. */
function htmlOf(raw) {
	const [headers, ...rest] = raw.split('\r\n\r\n');
	const body = rest.join('\r\n\r\n');
	const boundary = /boundary="?([^";\r\n]+)"?/i.exec(headers)?.[1];
	if (!boundary) return decodeBody(headers, body);
	const parts = body.split(`--${boundary}`).slice(1, -1);
	const html = parts.find((part) => /content-type:\s*text\/html/i.test(part.split('\r\n\r\n')[0]));
	return html ? htmlOf(html.replace(/^\r\n/, '')) : '';
}

/** The links of an HTML text, their `&amp;` unescaped. */
function linksOf(html) {
	return [...html.matchAll(/href="([^"]+)"/g)].map((match) => match[1].replace(/&amp;/g, '&'));
}

async function startFakeSmtp() {
	/** Every mail received: `{ raw, html, links }`. */
	const mails = [];
	const waiters = new Set();
	const received = (raw) => {
		const html = htmlOf(raw);
		mails.push({ raw, html, links: linksOf(html) });
		for (const waiter of waiters) waiter();
	};
	const sockets = new Set();
	const server = net.createServer((socket) => {
		sockets.add(socket);
		socket.on('close', () => sockets.delete(socket));
		socket.setEncoding('utf8');
		let pending = '';
		let data;
		const reply = (line) => socket.write(`${line}\r\n`);
		reply('220 fake-smtp ready');
		socket.on('data', (chunk) => {
			pending += chunk;
			let end;
			while ((end = pending.indexOf('\r\n')) >= 0) {
				const line = pending.slice(0, end);
				pending = pending.slice(end + 2);
				if (data !== undefined) {
					if (line !== '.') data += `${line.startsWith('.') ? line.slice(1) : line}\r\n`;
					else {
						received(data);
						data = undefined;
						reply('250 OK: queued');
					}
					continue;
				}
				const verb = line.slice(0, 4).toUpperCase();
				if (verb === 'DATA') {
					data = '';
					reply('354 End data with <CR><LF>.<CR><LF>');
				} else if (verb === 'QUIT') {
					reply('221 Bye');
					socket.end();
				} else reply('250 OK'); // EHLO, HELO, MAIL FROM, RCPT TO, RSET, NOOP
			}
		});
		socket.on('error', () => undefined);
	});
	await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
	return {
		port: server.address().port,
		mails,
		/** The mail after the first `count`, once it has come, or an error after `ms`. */
		mailAfter(count, ms) {
			return new Promise((resolve, reject) => {
				const check = () => {
					if (mails.length <= count) return;
					waiters.delete(check);
					clearTimeout(timer);
					resolve(mails[count]);
				};
				const timer = setTimeout(() => {
					waiters.delete(check);
					reject(new Error(`no mail came within ${ms / 1000} s (${mails.length} in all)`));
				}, ms);
				waiters.add(check);
				check();
			});
		},
		close: () => {
			for (const socket of sockets) socket.destroy();
			return new Promise((resolve) => server.close(resolve));
		},
	};
}

module.exports = { startFakeSmtp };
