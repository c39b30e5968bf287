'use strict';
/** Writing an NDJSON stream: backpressure, byte-level splitting, grouped lines, drop and stall. */
const { sleep } = require('../util');

const ABORT = Symbol('stream aborted');

/** Writes to a streaming response with backpressure, optional byte-level splitting. */
class StreamOut {
	/**
	 * @param {import('../types').Context} ctx
	 * @param {import('node:http').ServerResponse} res
	 * @param {boolean} split
	 */
	constructor(ctx, res, split) {
		this.ctx = ctx;
		this.res = res;
		this.split = split;
		/** @type {Buffer} */
		this.pending = Buffer.alloc(0);
		this.closed = false;
		/** big streams without token delay: group lines into chunks of up to this many bytes (0 = off) */
		this.batchBytes = 0;
		/** @type {string[]} */
		this.batch = [];
		this.batchSize = 0;
		/** @type {Set<() => void>} */
		this.waiters = new Set();
		res.on('close', () => {
			this.closed = true;
			for (const w of this.waiters) w();
			this.waiters.clear();
		});
	}

	/** Resolves on 'drain' or when the response closes. @param {'drain'} [ev] */
	wait(ev) {
		return new Promise((resolve) => {
			if (this.closed) return resolve(undefined);
			const done = () => {
				this.waiters.delete(done);
				if (ev) this.res.removeListener(ev, done);
				resolve(undefined);
			};
			this.waiters.add(done);
			if (ev) this.res.once(ev, done);
		});
	}

	/** @param {string|Buffer} chunk */
	async raw(chunk) {
		if (this.closed) throw ABORT;
		if (!this.res.write(chunk)) await this.wait('drain');
		if (this.closed) throw ABORT;
	}

	/** @param {string|Buffer} data */
	async write(data) {
		if (this.batchBytes > 0 && typeof data === 'string') {
			this.batch.push(data);
			this.batchSize += data.length;
			if (this.batchSize >= this.batchBytes) await this.flush();
			return;
		}
		await this.flush();
		if (!this.split) return this.raw(data);
		const buf = Buffer.concat([
			this.pending,
			Buffer.isBuffer(data) ? data : Buffer.from(data, 'utf8'),
		]);
		// cut just after the lead byte of the last multi-byte character (so the character is split
		// across two chunks); without one, cut in the middle of the line. The rest is carried into
		// the next write, so chunk boundaries never match line boundaries.
		let cut = -1;
		for (let i = buf.length - 2; i >= 0; i--) {
			if (buf[i] >= 0xc0) {
				cut = i + 1;
				break;
			}
		}
		if (cut < 0) cut = Math.max(1, buf.length >> 1);
		const head = buf.subarray(0, cut);
		this.pending = Buffer.from(buf.subarray(cut));
		await this.raw(head);
		await sleep(this.ctx, 2);
	}

	/** Write out grouped lines (batch mode). */
	async flush() {
		if (this.batch.length === 0) return;
		const text = this.batch.join('');
		this.batch = [];
		this.batchSize = 0;
		await this.raw(text);
	}

	async end() {
		await this.flush();
		if (this.pending.length > 0 && !this.closed) {
			const rest = this.pending;
			this.pending = Buffer.alloc(0);
			const half = Math.max(1, rest.length >> 1);
			await this.raw(rest.subarray(0, half));
			await sleep(this.ctx, 2);
			if (half < rest.length) await this.raw(rest.subarray(half));
		}
		if (!this.closed) this.res.end();
	}

	/** Stop writing and drop the connection once what was written has left. */
	async drop() {
		await this.flush();
		const sock = this.res.socket;
		if (this.pending.length > 0) {
			await this.raw(this.pending);
			this.pending = Buffer.alloc(0);
		}
		if (sock && !sock.destroyed) {
			// the callback runs once everything queued before it has been handed to the OS
			await new Promise((resolve) => {
				sock.once('close', resolve);
				sock.write(Buffer.alloc(0), () => resolve(undefined));
			});
		}
		await sleep(this.ctx, 5);
		if (sock) sock.destroy();
		else this.res.destroy();
	}
}

module.exports = { StreamOut, ABORT };
