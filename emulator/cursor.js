'use strict';
/**
 * The export order (modified, then id) and its cursor: base64 of `{"m": <modified ms>, "id"}`,
 * meaning "after this record". Binary search keeps a page O(log n + page).
 */
const { badRequest, isPlainObject } = require('./util');

/**
 * @typedef {{ t: number, id: string, flow: string, rec: any }} Entry
 */

/** @param {Entry} a @param {number} t @param {string} id  negative if a < (t,id) */
function cmp(a, t, id) {
	if (a.t !== t) return a.t < t ? -1 : 1;
	return a.id < id ? -1 : a.id > id ? 1 : 0;
}

/** First index whose entry is > (t,id) (strict) or >= when `inclusive`. */
function search(
	/** @type {Entry[]} */ arr,
	/** @type {number} */ t,
	/** @type {string} */ id,
	inclusive = false,
) {
	let lo = 0;
	let hi = arr.length;
	while (lo < hi) {
		const mid = (lo + hi) >>> 1;
		const c = cmp(arr[mid], t, id);
		if (c < 0 || (!inclusive && c === 0)) lo = mid + 1;
		else hi = mid;
	}
	return lo;
}

/** @param {number} t @param {string} id @param {Record<string, any>} [extra] */
function encodeCursor(t, id, extra) {
	return Buffer.from(JSON.stringify({ m: t, id, ...(extra || {}) })).toString('base64');
}

/**
 * @param {string} cursor
 * @returns {{ t: number, id: string }}
 */
function decodeCursor(cursor) {
	const invalid = () => badRequest('params[1] (afterCursor) is not a valid cursor');
	if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(cursor)) throw invalid();
	let obj;
	try {
		obj = JSON.parse(Buffer.from(cursor, 'base64').toString('utf8'));
	} catch {
		throw invalid();
	}
	if (
		!isPlainObject(obj) ||
		typeof obj.m !== 'number' ||
		!Number.isFinite(obj.m) ||
		typeof obj.id !== 'string'
	) {
		throw invalid();
	}
	return { t: obj.m, id: obj.id };
}

module.exports = { cmp, search, encodeCursor, decodeCursor };
