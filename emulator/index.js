'use strict';
/**
 * BotDojo emulator: an in-memory HTTP server implementing the flow execution and project
 * data interface (9 endpoints) with fault injection. No dependencies beyond node:http.
 *
 *   const { startEmulator } = require('./emulator');
 *   const emu = await startEmulator({ port: 0 });
 *   // credential base URL: emu.baseUrl, key: emu.keys.project
 *   await emu.close();
 */
const http = require('node:http');
const crypto = require('node:crypto');
const { createHandler } = require('./server');
const { Store } = require('./store');
const { Documents } = require('./documents');
const { Indexes } = require('./indexes');
const { builtinFlows, normalizeFlow } = require('./flows');
const { injectFault } = require('./faults');
const { ENDPOINTS } = require('./routes');
const { seedDemo } = require('./demo');

/**
 * The public types (see types.js), re-exported for TypeScript tests.
 * @typedef {import('./types').EndpointName} EndpointName
 * @typedef {import('./types').FaultType} FaultType
 * @typedef {import('./types').FaultParams} FaultParams
 * @typedef {import('./types').InjectFaultOptions} InjectFaultOptions
 * @typedef {import('./types').ArmedFault} ArmedFault
 * @typedef {import('./types').RequestLogEntry} RequestLogEntry
 * @typedef {import('./types').UploadLogBody} UploadLogBody
 * @typedef {import('./types').ChatMessage} ChatMessage
 * @typedef {import('./types').FlowRequestRecord} FlowRequestRecord
 * @typedef {import('./types').FlowSessionRecord} FlowSessionRecord
 * @typedef {import('./types').DocumentRecord} DocumentRecord
 * @typedef {import('./types').DocumentEntry} DocumentEntry
 * @typedef {import('./types').ToolCall} ToolCall
 * @typedef {import('./types').FlowSessionView} FlowSessionView
 * @typedef {import('./types').FlowDef} FlowDef
 * @typedef {import('./types').SeedOptions} SeedOptions
 * @typedef {import('./types').StartOptions} StartOptions
 * @typedef {import('./types').Behavior} Behavior
 * @typedef {Awaited<ReturnType<typeof startEmulator>>} Emulator
 */

const ACCOUNT_ID = /** @type {'acc_demo'} */ ('acc_demo');
const PROJECT_ID = /** @type {'proj_demo'} */ ('proj_demo');
/** @type {Readonly<{ project: string, flow: string, noUpload: string }>} */
const KEYS = Object.freeze({
	project: 'bdk_project_demo_0123456789',
	flow: 'bdk_flow_echo_0123456789',
	noUpload: 'bdk_project_readonly_0123456789',
});

/**
 * Switchable behaviours where the spec leaves the service open.
 * - unknownFlowExport: 'empty' (200, no results) | 'notFound' (404 naming the flow)
 * - answerWrapper: 'plain' (the spec's answers) | 'success' (every positional endpoint answers
 *   `{ success: true, results: ... }`)
 * - answerShape: 'spec' | 'mismatched' (every endpoint answers 200 with a value of another shape
 *   than its own: an object where a list belongs, a list where an object belongs, an object
 *   where the signed link's string belongs)
 */
const DEFAULT_BEHAVIOR = Object.freeze({
	unknownFlowExport: /** @type {'empty' | 'notFound'} */ ('empty'),
	answerWrapper: /** @type {'plain' | 'success'} */ ('plain'),
	answerShape: /** @type {'spec' | 'mismatched'} */ ('spec'),
});

/**
 * The behaviour options in `source`, checked.
 * @param {Record<string, any>} source
 * @returns {Partial<import('./types').Behavior>}
 */
function pickBehavior(source) {
	/** @type {Record<string, any>} */
	const out = {};
	if (source.unknownFlowExport !== undefined) {
		if (!['empty', 'notFound'].includes(source.unknownFlowExport))
			throw new Error("unknownFlowExport must be 'empty' or 'notFound'");
		out.unknownFlowExport = source.unknownFlowExport;
	}
	if (source.answerWrapper !== undefined) {
		if (!['plain', 'success'].includes(source.answerWrapper))
			throw new Error("answerWrapper must be 'plain' or 'success'");
		out.answerWrapper = source.answerWrapper;
	}
	if (source.answerShape !== undefined) {
		if (!['spec', 'mismatched'].includes(source.answerShape))
			throw new Error("answerShape must be 'spec' or 'mismatched'");
		out.answerShape = source.answerShape;
	}
	return out;
}

/**
 * Start the emulator.
 * @param {StartOptions} [options]
 */
async function startEmulator(options = {}) {
	const host = options.host || '127.0.0.1';
	const port = options.port === undefined ? 0 : options.port;

	// the stores take the context they belong to, so it is complete only once they exist
	const ctx = /** @type {import('./types').Context} */ (
		/** @type {unknown} */ ({
			accountId: ACCOUNT_ID,
			projectId: PROJECT_ID,
			ownerUid: 'usr_demo',
			keys: KEYS,
			secret: crypto.randomBytes(32),
			requests: [],
			faults: [],
			timers: new Set(),
			flows: new Map(),
			origin: '',
			behavior: { ...DEFAULT_BEHAVIOR, ...pickBehavior(options) },
		})
	);
	ctx.store = new Store(ctx);
	ctx.documents = new Documents(ctx);
	ctx.indexes = new Indexes(ctx);
	for (const [id, def] of Object.entries(builtinFlows())) ctx.flows.set(id, normalizeFlow(id, def));

	/** @type {Set<import('node:net').Socket>} */
	const sockets = new Set();
	const server = http.createServer(createHandler(ctx));
	server.on('connection', (socket) => {
		sockets.add(socket);
		socket.on('close', () => sockets.delete(socket));
	});
	server.on('clientError', (err, socket) => {
		// A request line or headers over Node's limit: 431, as Node itself would answer.
		const status =
			/** @type {any} */ (err).code === 'HPE_HEADER_OVERFLOW'
				? '431 Request Header Fields Too Large'
				: '400 Bad Request';
		if (socket.writable) socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\n\r\n`);
		else socket.destroy();
	});

	await new Promise((resolve, reject) => {
		server.once('error', reject);
		server.listen(port, host, () => {
			server.removeListener('error', reject);
			resolve(undefined);
		});
	});
	const addr = /** @type {import('node:net').AddressInfo} */ (server.address());
	const hostPart =
		addr.family === 'IPv6' || addr.family === /** @type {any} */ (6)
			? `[${addr.address}]`
			: addr.address;
	ctx.origin = `http://${hostPart}:${addr.port}`;
	if (options.seedDemo) seedDemo(ctx);

	let closing = /** @type {Promise<void>|null} */ (null);

	const emu = {
		origin: ctx.origin,
		baseUrl: `${ctx.origin}/api/v1`,
		port: addr.port,
		accountId: ACCOUNT_ID,
		projectId: PROJECT_ID,
		keys: KEYS,
		/** every request received, in order */
		requests: /** @type {RequestLogEntry[]} */ (ctx.requests),
		/** @param {EndpointName} endpoint @returns {RequestLogEntry[]} */
		requestsTo(endpoint) {
			return ctx.requests.filter((r) => r.endpoint === endpoint);
		},
		/**
		 * @param {FaultType | string | ({ type: FaultType } & FaultParams)} fault
		 * @param {InjectFaultOptions} [opts]
		 * @returns {ArmedFault}
		 */
		injectFault(fault, opts) {
			const endpoint = opts?.endpoint;
			if (endpoint !== undefined && endpoint !== null && !ENDPOINTS.includes(endpoint))
				throw new Error(
					`injectFault: unknown endpoint "${endpoint}". Known: ${ENDPOINTS.join(', ')}`,
				);
			return /** @type {ArmedFault} */ (injectFault(ctx, fault, opts));
		},
		/** @param {string} id @param {FlowDef} def */
		defineFlow(id, def) {
			ctx.flows.set(id, normalizeFlow(id, def));
		},
		/**
		 * @param {string} flowId
		 * @param {number} count
		 * @param {SeedOptions} [opts]
		 * @returns {FlowRequestRecord[]}
		 */
		seedFlowRequests(flowId, count, opts) {
			return ctx.store.seedFlowRequests(flowId, count, opts);
		},
		/** @param {Partial<FlowRequestRecord>} record @returns {FlowRequestRecord} */
		addRecord(record) {
			return ctx.store.addRecord(record);
		},
		/**
		 * Modify a finished flow request after the fact (e.g. `{ tags: ['reviewed'] }`); moves its
		 * `modified` forward (at least 1 ms, or to `patch.modified`). Returns the record.
		 * @param {string} id
		 * @param {Partial<FlowRequestRecord>} [patch]
		 * @returns {FlowRequestRecord}
		 */
		touchRequest(id, patch) {
			return ctx.store.touch(id, patch);
		},
		/** The current behaviours (see setBehavior). @returns {Behavior} */
		get behavior() {
			return { ...ctx.behavior };
		},
		/**
		 * Switch behaviours until reset(): `{ unknownFlowExport?: 'empty' | 'notFound',
		 * answerWrapper?: 'plain' | 'success', answerShape?: 'spec' | 'mismatched' }`. Returns the
		 * behaviours now in force.
		 * @param {Partial<Behavior>} changes
		 * @returns {Behavior}
		 */
		setBehavior(changes) {
			Object.assign(ctx.behavior, pickBehavior(changes || {}));
			return { ...ctx.behavior };
		},
		sessions: /** @type {Map<string, FlowSessionRecord>} */ (ctx.store.sessions),
		/** documents by id */
		documents: /** @type {Map<string, DocumentEntry>} */ (ctx.documents.byId),
		/** flow request records by id (runs, seeded and added records) */
		records: /** @type {Map<string, FlowRequestRecord>} */ (ctx.store.records),
		flows: ctx.flows,
		reset() {
			ctx.requests.length = 0;
			ctx.faults = [];
			ctx.store.reset();
			ctx.documents.reset();
			ctx.behavior = { ...DEFAULT_BEHAVIOR, ...pickBehavior(options) };
			if (options.seedDemo) seedDemo(ctx);
		},
		/** Close the server, destroying open sockets (stalled streams included). @returns {Promise<void>} */
		close() {
			if (!closing) {
				closing = new Promise((resolve) => {
					for (const item of ctx.timers) {
						clearTimeout(item.t);
						item.resolve();
					}
					ctx.timers.clear();
					server.close(() => resolve());
					for (const s of sockets) s.destroy();
					server.closeAllConnections();
				});
			}
			return closing;
		},
	};
	return emu;
}

module.exports = { startEmulator, KEYS, ACCOUNT_ID, PROJECT_ID };
