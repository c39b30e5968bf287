'use strict';
/** multipart/form-data parsing (binary-safe, one pass, no copies of part data). */
const { badRequest } = require('./util');

/** @param {string} header */
function parseHeaderParams(header) {
	/** @type {Record<string, string>} */
	const out = {};
	const re = /;\s*([^\s=;]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;]*))/g;
	let m;
	while ((m = re.exec(header))) {
		const key = m[1].toLowerCase();
		let value = m[2] !== undefined ? m[2].replace(/\\(.)/g, '$1') : (m[3] || '').trim();
		if (key.endsWith('*')) {
			const ext = /^([^']*)'[^']*'(.*)$/.exec(value);
			if (ext) {
				try {
					value = decodeURIComponent(ext[2]);
				} catch {
					/* keep raw */
				}
			}
			out[key.slice(0, -1)] = value;
			continue;
		}
		if (!(key in out)) out[key] = value;
	}
	return out;
}

/**
 * Parse a multipart/form-data body. One pass with Buffer#indexOf; no copies of part data.
 * @param {Buffer} buf
 * @param {string|undefined} contentType
 * @returns {{ name: string, filename?: string, contentType?: string, data: Buffer }[]}
 */
function parseMultipart(buf, contentType) {
	if (!contentType || !/^multipart\/form-data\b/i.test(contentType)) {
		throw badRequest('Content-Type must be multipart/form-data');
	}
	const boundary = parseHeaderParams(contentType).boundary;
	if (!boundary) throw badRequest('multipart/form-data Content-Type has no boundary');
	const malformed = (/** @type {string} */ why) => badRequest(`Malformed multipart body: ${why}`);
	const delim = Buffer.from(`--${boundary}`);
	const next = Buffer.from(`\r\n--${boundary}`);
	let pos = buf.indexOf(delim);
	if (pos < 0) throw malformed('boundary not found');
	const parts = [];
	for (;;) {
		pos += delim.length;
		if (buf[pos] === 0x2d && buf[pos + 1] === 0x2d) break; // closing delimiter
		while (buf[pos] === 0x20 || buf[pos] === 0x09) pos++;
		if (buf[pos] === 0x0d && buf[pos + 1] === 0x0a) pos += 2;
		else if (buf[pos] === 0x0a) pos += 1;
		else throw malformed('missing line break after boundary');
		const headEnd = buf.indexOf('\r\n\r\n', pos);
		if (headEnd < 0) throw malformed('part headers not terminated');
		/** @type {Record<string, string>} */
		const headers = {};
		for (const line of buf.toString('utf8', pos, headEnd).split(/\r?\n/)) {
			const c = line.indexOf(':');
			if (c > 0) headers[line.slice(0, c).trim().toLowerCase()] = line.slice(c + 1).trim();
		}
		const dataStart = headEnd + 4;
		const end = buf.indexOf(next, dataStart);
		if (end < 0) throw malformed('closing boundary not found');
		const disp = headers['content-disposition'] || '';
		const dp = parseHeaderParams(disp);
		if (!/^form-data\b/i.test(disp) || dp.name === undefined) {
			throw malformed('part without Content-Disposition: form-data; name=...');
		}
		parts.push({
			name: dp.name,
			filename: dp.filename,
			contentType: headers['content-type'],
			data: buf.subarray(dataStart, end),
		});
		pos = end + 2;
	}
	return parts;
}

module.exports = { parseMultipart };
