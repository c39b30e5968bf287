'use strict';
/**
 * Project documents: multipart upload (parsed here, binary-safe), lookup by logical path,
 * temporary signed links (HMAC-SHA256) and the download of such a link.
 */
const crypto = require('node:crypto');
const {
	newId,
	iso,
	HttpError,
	badRequest,
	notFound,
	sendJson,
	mismatched,
	isPlainObject,
	positional,
} = require('./util');

/**
 * @typedef {import('./types').DocumentRecord} DocumentRecord
 * @typedef {import('./types').DocumentEntry} DocEntry
 */

const { parseMultipart } = require('./multipart');

class Documents {
	/** @param {import('./types').Context} ctx */
	constructor(ctx) {
		this.ctx = ctx;
		/** @type {Map<string, DocEntry>} by document id */
		this.byId = new Map();
		/** @type {Map<string, string>} logicalPath -> id */
		this.byPath = new Map();
	}

	reset() {
		this.byId.clear();
		this.byPath.clear();
	}

	/**
	 * Store a (new version of a) document.
	 * @param {{ fileName: string, logicalPath: string, contentType?: string, data: Buffer, meta?: Record<string, any> }} d
	 */
	put(d) {
		const existingId = this.byPath.get(d.logicalPath);
		const entry = existingId ? this.byId.get(existingId) : undefined;
		/** @type {DocumentRecord} */
		const record = {
			id: existingId || newId('doc'),
			fileName: d.fileName,
			contentType: d.contentType || 'application/octet-stream',
			sizeBytes: d.data.length,
			logicalPath: d.logicalPath,
			version: `v${entry ? entry.versions.length + 1 : 1}`,
			created: iso(),
			tags: [],
			meta: d.meta || {},
		};
		if (entry) {
			entry.versions.push({ record, data: d.data });
			entry.latest = record;
			entry.data = d.data;
		} else {
			this.byId.set(record.id, {
				latest: record,
				data: d.data,
				versions: [{ record, data: d.data }],
			});
			this.byPath.set(record.logicalPath, record.id);
		}
		return record;
	}

	/**
	 * Parse an upload body and fill the request-log entry with its summary. Never throws:
	 * a parse error is returned and raised later (after authentication).
	 * @param {Buffer} raw
	 * @param {string|undefined} contentType
	 * @param {any} entry request-log entry
	 * @returns {{ parts?: ReturnType<typeof parseMultipart>, error?: Error }}
	 */
	parseUpload(raw, contentType, entry) {
		let parts;
		try {
			parts = parseMultipart(raw, contentType);
		} catch (error) {
			return { error: /** @type {Error} */ (error) };
		}
		const doc = parts.find((p) => p.name === 'document');
		const text = (/** @type {string} */ name) => {
			const p = parts.find((x) => x.name === name);
			return p ? p.data.toString('utf8') : undefined;
		};
		if (entry) {
			entry.body = {
				fields: {
					fileName: text('fileName'),
					logicalPath: text('logicalPath'),
					meta: text('meta'),
				},
				file: doc
					? {
							fileName: doc.filename,
							contentType: doc.contentType,
							size: doc.data.length,
							sha256: crypto.createHash('sha256').update(doc.data).digest('hex'),
						}
					: undefined,
			};
		}
		return { parts };
	}

	/**
	 * POST documents/upload-file (after authentication)
	 * @param {{ parts?: ReturnType<typeof parseMultipart>, error?: Error }} parsed from parseUpload
	 * @param {import('node:http').ServerResponse} res
	 */
	upload(parsed, res) {
		if (parsed.error || !parsed.parts) throw parsed.error || badRequest('Malformed multipart body');
		const parts = parsed.parts;
		const get = (/** @type {string} */ name) => parts.find((p) => p.name === name);
		const text = (/** @type {string} */ name) => {
			const p = get(name);
			return p ? p.data.toString('utf8') : undefined;
		};
		const doc = get('document');
		const fields = {
			fileName: text('fileName'),
			logicalPath: text('logicalPath'),
			meta: text('meta'),
		};
		if (!doc) throw badRequest('Missing required part "document" (the file)');
		if (doc.filename === undefined)
			throw badRequest('Part "document" must be a file (Content-Disposition with filename)');
		if (!fields.fileName) throw badRequest('Missing required part "fileName"');
		if (!fields.logicalPath) throw badRequest('Missing required part "logicalPath"');
		/** @type {Record<string, any>} */
		let meta = {};
		if (fields.meta !== undefined && fields.meta !== '') {
			try {
				meta = JSON.parse(fields.meta);
			} catch {
				throw badRequest('Part "meta" must be a JSON object (invalid JSON)');
			}
			if (!isPlainObject(meta)) throw badRequest('Part "meta" must be a JSON object');
		}
		const record = this.put({
			fileName: fields.fileName,
			logicalPath: fields.logicalPath,
			contentType: doc.contentType,
			data: Buffer.from(doc.data), // own copy, not a view into the request buffer
			meta,
		});
		sendJson(res, 200, this.ctx.behavior.answerShape === 'mismatched' ? mismatched(record) : record);
	}

	/** POST documents/loadByLogicalPath [logicalPath] @param {any} body */
	loadByLogicalPath(body) {
		const p = positional(body);
		const path = p.string(0, 'logicalPath');
		const id = this.byPath.get(path);
		const entry = id && this.byId.get(id);
		if (!entry) throw notFound(`Document with logicalPath '${path}' not found`);
		return { results: entry.latest };
	}

	/** @param {string} id @param {string} version @param {number} expires */
	sign(id, version, expires) {
		return crypto
			.createHmac('sha256', this.ctx.secret)
			.update(`${id}\n${version}\n${expires}`)
			.digest('hex');
	}

	/** POST documents/getTemporarySignedUrl [doc, expires] @param {any} body */
	getTemporarySignedUrl(body) {
		const p = positional(body);
		const doc = p.object(0, 'doc');
		/** @type {DocEntry|undefined} */
		let entry;
		if (typeof doc.id === 'string' && doc.id !== '') {
			entry = this.byId.get(doc.id);
			if (!entry) throw notFound(`Document '${doc.id}' not found`);
		} else if (typeof doc.logicalPath === 'string' && doc.logicalPath !== '') {
			const id = this.byPath.get(doc.logicalPath);
			entry = id ? this.byId.get(id) : undefined;
			if (!entry) throw notFound(`Document with logicalPath '${doc.logicalPath}' not found`);
		} else {
			throw badRequest('params[0] (doc) must be a document record with an "id" (or "logicalPath")');
		}
		let version = entry.latest.version;
		if (typeof doc.version === 'string' && doc.version !== '') {
			if (!entry.versions.some((v) => v.record.version === doc.version)) {
				throw notFound(`Version '${doc.version}' of document '${entry.latest.id}' not found`);
			}
			version = doc.version;
		}
		const expiresRaw = p.params[1];
		if (expiresRaw === undefined || expiresRaw === null)
			throw badRequest('params[1] (expires) is required');
		if (typeof expiresRaw !== 'string' || Number.isNaN(Date.parse(expiresRaw))) {
			throw badRequest('params[1] (expires) must be an ISO 8601 date string');
		}
		const expires = Date.parse(expiresRaw);
		if (expires <= Date.now()) throw badRequest('params[1] (expires) must be in the future');
		const id = entry.latest.id;
		const sig = this.sign(id, version, expires);
		const url = `${this.ctx.origin}/signed/${encodeURIComponent(id)}?v=${encodeURIComponent(version)}&expires=${expires}&sig=${sig}`;
		return { results: url };
	}

	/**
	 * GET /signed/<docId>?v=&expires=&sig=  (no Authorization)
	 * @param {URL} url
	 * @param {import('node:http').IncomingMessage} req
	 * @param {import('node:http').ServerResponse} res
	 */
	download(url, req, res) {
		const id = decodeURIComponent(url.pathname.slice('/signed/'.length));
		const version = url.searchParams.get('v') || '';
		const expiresStr = url.searchParams.get('expires') || '';
		const sig = url.searchParams.get('sig') || '';
		const expected = this.sign(id, version, Number(expiresStr));
		const ok =
			/^\d+$/.test(expiresStr) &&
			sig.length === expected.length &&
			crypto.timingSafeEqual(Buffer.from(sig), Buffer.from(expected));
		if (!ok) throw new HttpError(403, 'The request signature does not match');
		if (Date.now() > Number(expiresStr)) throw new HttpError(403, 'Request has expired');
		const entry = this.byId.get(id);
		const v = entry && entry.versions.find((x) => x.record.version === version);
		if (!v) throw notFound(`Document '${id}' version '${version}' not found`);
		const name = v.record.fileName;
		const ascii = name.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
		const entryLog = /** @type {any} */ (res).logEntry;
		if (entryLog) entryLog.status = 200;
		res.writeHead(200, {
			'Content-Type': v.record.contentType,
			'Content-Length': String(v.data.length),
			'Content-Disposition': `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`,
			'Cache-Control': 'private, no-store',
		});
		if (req.method === 'HEAD') res.end();
		else res.end(v.data);
	}
}

module.exports = { Documents, parseMultipart };
