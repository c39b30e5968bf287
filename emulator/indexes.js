'use strict';
/**
 * Vector indexes: status lookup and metadata queries over a few fixed chunks.
 *
 * Query language (the spec leaves it open): a plain object whose keys are metadata field
 * names. A value that is a string/number/boolean/null means equality; an object value holds
 * operators $eq $ne $in $nin $gt $gte $lt $lte (all given operators must hold). The reserved
 * top-level key `$limit` (integer 1..1000) caps the number of results. `{}` matches every chunk.
 */
const { badRequest, notFound, positional, isPlainObject } = require('./util');

const OPERATORS = ['$eq', '$ne', '$in', '$nin', '$gt', '$gte', '$lt', '$lte'];

/** @param {string} lastUpdated */
function builtinIndexes(lastUpdated) {
	const chunks = [
		{
			id: 'chk_001',
			documentId: 'doc_handbook',
			text: 'Welcome to the company handbook. This chapter explains our values.',
			metadata: { source: 'handbook.pdf', page: 1, lang: 'en' },
		},
		{
			id: 'chk_002',
			documentId: 'doc_handbook',
			text: 'Holidays: every employee has 25 days of paid leave per year.',
			metadata: { source: 'handbook.pdf', page: 2, lang: 'en' },
		},
		{
			id: 'chk_003',
			documentId: 'doc_handbook',
			text: 'Expenses are reimbursed within 30 days after approval.',
			metadata: { source: 'handbook.pdf', page: 3, lang: 'en' },
		},
		{
			id: 'chk_004',
			documentId: 'doc_faq',
			text: 'Wie setze ich mein Passwort zurück? Über die Seite Konto.',
			metadata: { source: 'faq.md', page: 1, lang: 'de' },
		},
		{
			id: 'chk_005',
			documentId: 'doc_faq',
			text: 'How do I reset my password? Use the Account page.',
			metadata: { source: 'faq.md', page: 1, lang: 'en' },
		},
	];
	return new Map([
		[
			'idx_docs',
			{
				status: {
					id: 'idx_docs',
					name: 'Project documents',
					status: 'ready',
					progress: 1,
					documentCount: 2,
					chunkCount: chunks.length,
					embeddingModel: 'text-embedding-3-small',
					dimensions: 1536,
					lastUpdated,
				},
				chunks,
			},
		],
		[
			'idx_building',
			{
				status: {
					id: 'idx_building',
					name: 'Index being built',
					status: 'indexing',
					progress: 0.4,
					documentCount: 10,
					chunkCount: 1,
					embeddingModel: 'text-embedding-3-small',
					dimensions: 1536,
					lastUpdated,
				},
				chunks: [
					{
						id: 'chk_b01',
						documentId: 'doc_pending',
						text: 'Partially indexed content.',
						metadata: { source: 'pending.txt', page: 1, lang: 'en' },
					},
				],
			},
		],
	]);
}

/** @param {any} a @param {any} b */
function same(a, b) {
	return a === b || (typeof a === 'object' && JSON.stringify(a) === JSON.stringify(b));
}

/**
 * @param {Record<string, any>} query
 * @returns {(meta: Record<string, any>) => boolean}
 */
function compile(query) {
	/** @type {((meta: Record<string, any>) => boolean)[]} */
	const tests = [];
	for (const [field, cond] of Object.entries(query)) {
		if (field === '$limit') continue;
		if (field.startsWith('$'))
			throw badRequest(`params[1] (query): unknown top-level operator "${field}"`);
		if (!isPlainObject(cond)) {
			tests.push((m) => same(m[field], cond));
			continue;
		}
		for (const [op, arg] of Object.entries(cond)) {
			if (!OPERATORS.includes(op)) {
				throw badRequest(
					`params[1] (query): unknown operator "${op}" on "${field}"; known: ${OPERATORS.join(' ')}`,
				);
			}
			if ((op === '$in' || op === '$nin') && !Array.isArray(arg)) {
				throw badRequest(`params[1] (query): "${field}.${op}" must be an array`);
			}
			if (
				['$gt', '$gte', '$lt', '$lte'].includes(op) &&
				typeof arg !== 'number' &&
				typeof arg !== 'string'
			) {
				throw badRequest(`params[1] (query): "${field}.${op}" must be a number or string`);
			}
			const f = field;
			const t = {
				$eq: (/** @type {any} */ v) => same(v, arg),
				$ne: (/** @type {any} */ v) => !same(v, arg),
				$in: (/** @type {any} */ v) => arg.some((/** @type {any} */ x) => same(v, x)),
				$nin: (/** @type {any} */ v) => !arg.some((/** @type {any} */ x) => same(v, x)),
				$gt: (/** @type {any} */ v) => v !== undefined && typeof v === typeof arg && v > arg,
				$gte: (/** @type {any} */ v) => v !== undefined && typeof v === typeof arg && v >= arg,
				$lt: (/** @type {any} */ v) => v !== undefined && typeof v === typeof arg && v < arg,
				$lte: (/** @type {any} */ v) => v !== undefined && typeof v === typeof arg && v <= arg,
			}[/** @type {'$eq'} */ (op)];
			tests.push((m) => t(m[f]));
		}
	}
	return (m) => tests.every((t) => t(m));
}

class Indexes {
	/** @param {import('./types').Context} ctx */
	constructor(ctx) {
		this.ctx = ctx;
		this.byId = builtinIndexes(new Date().toISOString());
	}

	/** @param {string} id */
	get(id) {
		const idx = this.byId.get(id);
		if (!idx) throw notFound(`Index '${id}' not found in project '${this.ctx.projectId}'`);
		return idx;
	}

	/** POST indexes/getStatus [indexId] @param {any} body */
	getStatus(body) {
		const p = positional(body);
		return { results: this.get(p.string(0, 'indexId')).status };
	}

	/** POST indexes/queryMetadata [indexId, query] @param {any} body */
	queryMetadata(body) {
		const p = positional(body);
		const id = p.string(0, 'indexId');
		const query = p.object(1, 'query');
		const idx = this.get(id);
		let limit = 1000;
		if (query.$limit !== undefined) {
			if (!Number.isInteger(query.$limit) || query.$limit < 1 || query.$limit > 1000) {
				throw badRequest('params[1] (query): "$limit" must be an integer from 1 to 1000');
			}
			limit = query.$limit;
		}
		const match = compile(query);
		const results = idx.chunks
			.filter((c) => match(c.metadata))
			.slice(0, limit)
			.map((c) => ({ id: c.id, documentId: c.documentId, text: c.text, metadata: c.metadata }));
		return { results };
	}
}

module.exports = { Indexes };
