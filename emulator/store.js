'use strict';
/**
 * In-memory flow request records and flow sessions, with a sorted index per flow
 * for cursor-paged export (binary search, O(log n + page) per page).
 */
const { newId, iso } = require('./util');
const { cmp, search, encodeCursor, decodeCursor } = require('./cursor');
const { makeRecord, seededRecords } = require('./records');

/** @typedef {import('./cursor').Entry} Entry */

const EXPORTABLE = new Set(['complete', 'error']);
/** export-index entry of a record, kept on the record under a symbol (invisible to JSON) */
const ENTRY = Symbol('exportEntry');

class Store {
	/** @param {import('./types').Context} ctx */
	constructor(ctx) {
		this.ctx = ctx;
		/** @type {Map<string, any>} session records by id */
		this.sessions = new Map();
		/** @type {Map<string, any>} flow request records by id */
		this.records = new Map();
		/** @type {Map<string, any[]>} records of a session, in order */
		this.bySession = new Map();
		/** @type {Map<string, Entry[]>} exportable records per flow, sorted by (modified, id) */
		this.exportable = new Map();
	}

	reset() {
		this.sessions.clear();
		this.records.clear();
		this.bySession.clear();
		this.exportable.clear();
	}

	/**
	 * @param {string} flowId
	 * @param {Record<string, any>} sessionState
	 * @param {string} [id]
	 */
	createSession(flowId, sessionState, id) {
		const now = iso();
		const session = {
			tags: [],
			id: id || newId('ses'),
			flow_id: flowId,
			sessionState,
			created: now,
			modified: now,
			owner_uid: this.ctx.ownerUid,
			modified_uid: this.ctx.ownerUid,
			account_id: this.ctx.accountId,
			project_id: this.ctx.projectId,
		};
		this.sessions.set(session.id, session);
		return session;
	}

	/** A session by id; sessions known only from (seeded) records are materialised on demand. */
	getSession(/** @type {string} */ id) {
		const s = this.sessions.get(id);
		if (s) return s;
		const recs = this.bySession.get(id);
		if (!recs || recs.length === 0) return undefined;
		const session = this.createSession(recs[0].flow_id, {}, id);
		session.created = recs[0].created;
		return session;
	}

	/** @param {string} sessionId */
	history(sessionId) {
		return this.bySession.get(sessionId) || [];
	}

	/** Insert or replace a record and keep every index in step. */
	put(/** @type {any} */ rec) {
		const old = this.records.get(rec.id);
		if (old && old !== rec) {
			const list = this.bySession.get(old.flow_session_id);
			if (list) {
				const i = list.indexOf(old);
				if (i >= 0) {
					if (old.flow_session_id === rec.flow_session_id) list[i] = rec;
					else list.splice(i, 1);
				}
			}
		}
		this.records.set(rec.id, rec);
		if (!old || old === rec || old.flow_session_id !== rec.flow_session_id) {
			let list = this.bySession.get(rec.flow_session_id);
			if (!list) this.bySession.set(rec.flow_session_id, (list = []));
			if (!list.includes(rec)) list.push(rec);
		}
		this.reindex(rec, old);
		return rec;
	}

	/**
	 * (Re)place the record in the export index according to its current status/modified.
	 * @param {any} rec
	 * @param {any} [prev] the record object it replaces, if any
	 */
	reindex(rec, prev) {
		const old = (prev && prev[ENTRY]) || rec[ENTRY];
		if (old) {
			const arr = this.exportable.get(old.flow) || [];
			const i = search(arr, old.t, old.id, true);
			if (arr[i] === old) arr.splice(i, 1);
			else {
				const j = arr.indexOf(old);
				if (j >= 0) arr.splice(j, 1);
			}
			if (prev) delete prev[ENTRY];
			delete rec[ENTRY];
		}
		if (!EXPORTABLE.has(rec.status)) return;
		const t = Date.parse(rec.modified);
		if (Number.isNaN(t))
			throw new Error(`record ${rec.id}: modified is not an ISO date: ${rec.modified}`);
		const entry = { t, id: rec.id, flow: rec.flow_id, rec };
		let arr = this.exportable.get(rec.flow_id);
		if (!arr) this.exportable.set(rec.flow_id, (arr = []));
		if (arr.length === 0 || cmp(arr[arr.length - 1], t, rec.id) < 0) arr.push(entry);
		else arr.splice(search(arr, t, rec.id), 0, entry);
		rec[ENTRY] = entry;
	}

	/** Fast bulk insert (seeding): push then sort once if needed. */
	putMany(/** @type {any[]} */ recs) {
		/** @type {Set<string>} */
		const touched = new Set();
		for (const rec of recs) {
			if (this.records.has(rec.id)) {
				this.put(rec);
				continue;
			}
			this.records.set(rec.id, rec);
			let list = this.bySession.get(rec.flow_session_id);
			if (!list) this.bySession.set(rec.flow_session_id, (list = []));
			list.push(rec);
			if (!EXPORTABLE.has(rec.status)) continue;
			const entry = { t: Date.parse(rec.modified), id: rec.id, flow: rec.flow_id, rec };
			if (Number.isNaN(entry.t)) throw new Error(`record ${rec.id}: modified is not an ISO date`);
			let arr = this.exportable.get(rec.flow_id);
			if (!arr) this.exportable.set(rec.flow_id, (arr = []));
			if (arr.length > 0 && cmp(arr[arr.length - 1], entry.t, entry.id) >= 0)
				touched.add(rec.flow_id);
			arr.push(entry);
			rec[ENTRY] = entry;
		}
		for (const flowId of touched) {
			const arr = /** @type {Entry[]} */ (this.exportable.get(flowId));
			arr.sort((a, b) => cmp(a, b.t, b.id));
		}
	}

	/**
	 * One export page.
	 * @param {string} flowId
	 * @param {{ after?: {t:number,id:string}, limit: number, from?: number, to?: number }} q
	 */
	exportPage(flowId, q) {
		const arr = this.exportable.get(flowId) || [];
		let i = 0;
		if (q.after) i = search(arr, q.after.t, q.after.id, false);
		if (q.from !== undefined) i = Math.max(i, search(arr, q.from, '', true));
		const inRange = (/** @type {number} */ k) =>
			k < arr.length && (q.to === undefined || arr[k].t <= q.to);
		const results = [];
		while (results.length < q.limit && inRange(i)) {
			results.push(arr[i].rec);
			i += 1;
		}
		const hasMore = results.length > 0 && inRange(i);
		const last = arr[i - 1];
		return {
			results,
			nextCursor: hasMore ? encodeCursor(last.t, last.id) : null,
			hasMore,
			/** position for fault answers */
			position: q.after || null,
		};
	}

	/** Whether any exportable record of this flow exists (seeded flows count as known). @param {string} flowId */
	hasRecordsOf(flowId) {
		const arr = this.exportable.get(flowId);
		return !!arr && arr.length > 0;
	}

	/**
	 * Change a finished record after the fact (a tag added, an evaluation attached): merges
	 * `patch` and moves `modified` forward (to `patch.modified` when given, else now, at least
	 * 1 ms after the old value), so that export and triggers see it again.
	 * @param {string} id
	 * @param {Record<string, any>} [patch]
	 */
	touch(id, patch = {}) {
		const rec = this.records.get(id);
		if (!rec) throw new Error(`touchRequest: no flow request '${id}'`);
		const before = Date.parse(rec.modified);
		const modified =
			patch.modified !== undefined ? String(patch.modified) : iso(Math.max(Date.now(), before + 1));
		Object.assign(rec, patch, { modified });
		this.reindex(rec);
		return rec;
	}

	/** @param {string} flowId @param {string} sessionId */
	loadByFlowSession(flowId, sessionId) {
		return this.history(sessionId).filter((r) => r.flow_id === flowId);
	}

	/**
	 * Seed `count` finished records of a flow (see `seededRecords`), in an optional session.
	 * @param {string} flowId
	 * @param {number} count
	 * @param {{ start?: number, stepMs?: number, errorEvery?: number, runningEvery?: number, sessionId?: string }} [opts]
	 */
	seedFlowRequests(flowId, count, opts = {}) {
		if (opts.sessionId && !this.getSession(opts.sessionId))
			this.createSession(flowId, {}, opts.sessionId);
		const recs = seededRecords(this.ctx, flowId, count, opts);
		this.putMany(recs);
		return recs;
	}

	/** Insert/replace one record, filling defaults. */
	addRecord(/** @type {Record<string, any>} */ partial) {
		const rec = makeRecord(this.ctx, partial);
		return this.put(rec);
	}
}

module.exports = { Store, encodeCursor, decodeCursor, EXPORTABLE };
