'use strict';
/**
 * Flows: built-in flow definitions, validation of the run request (Style A),
 * non-stream answers and NDJSON streaming with the stream faults.
 */
const {
	newId,
	iso,
	HttpError,
	badRequest,
	notFound,
	sendJson,
	isPlainObject,
	sleep,
} = require('./util');
const { takeFaults, findFault, STREAM_FAULTS, SESSION_FAULTS } = require('./faults');
const { legacyStep, realStep, finishedRealStep, argumentPrefixes } = require('./steps');

const TAGS = [
	'onLog',
	'onNewToken',
	'onIntermediateStepUpdate',
	'onFlowStart',
	'onFlowEnd',
	'onToolStart',
	'onToolEnd',
	'onToolError',
	// not in the spec's table; the SDK knows them (botdojo-chat-sdk StreamEventType)
	'onFlowRequestStart',
	'onFlowRequestEnd',
];

/**
 * @typedef {{ toolName: string, input?: any, output?: any, error?: string }} ToolCall
 * @typedef {{
 *   releases?: string[],
 *   answer?: (body: any, session: any, options: any) => string,
 *   tokenDelayMs?: number,
 *   delayMs?: number,
 *   tools?: ToolCall[] | ((body: any) => ToolCall[]),
 *   status?: 'complete' | 'error',
 *   errorMessage?: string,
 *   tokens?: (body: any) => string[],
 *   shape?: 'legacy' | 'real',
 *   preambleTokens?: string[] | ((body: any) => string[]),
 *   toolArgumentTokens?: boolean,
 * }} FlowDef
 */

/** A human reading pace: about 30 tokens a second. */
const TYPING_DELAY_MS = 33;

/** ms to wait, from `body.waitMs` (number or numeric string) or a numeric `text_input`; default 1000. @param {any} body */
function waitMsOf(body) {
	const raw = body && body.waitMs !== undefined ? body.waitMs : body && body.text_input;
	const n = Number(raw);
	return raw !== undefined && raw !== '' && Number.isFinite(n) && n >= 0 ? n : 1000;
}

/** Split an answer into tokens whose concatenation is exactly the answer. @param {string} text */
function splitTokens(text) {
	return text.match(/^\s+|\S+\s*/g) || [];
}

/** @param {any} body */
function textOf(body) {
	return typeof body.text_input === 'string' ? body.text_input : JSON.stringify(body);
}

/** @param {number} n */
function bigTokens(n) {
	const out = new Array(n);
	for (let i = 0; i < n; i++) out[i] = `tok${String(i).padStart(6, '0')} `;
	return out;
}

/** @returns {Record<string, FlowDef>} */
function builtinFlows() {
	return {
		flow_echo: {
			releases: ['1', '2', '3'],
			answer: (body, session) => `Echo #${session.runNumber}: ${textOf(body)}`,
		},
		flow_tools: {
			releases: ['1'],
			tools: (body) => [
				{ toolName: 'search', input: { query: textOf(body) }, output: { hits: 2 } },
				{ toolName: 'calculator', input: { expression: '1/0' }, error: 'Division by zero' },
			],
			answer: (body) =>
				`I searched for "${textOf(body)}" and found 2 hits; the calculator failed (Division by zero).`,
		},
		flow_error: {
			releases: ['1'],
			status: 'error',
			errorMessage: 'The model provider returned an error',
			answer: () => 'Let me think about',
		},
		flow_slow: {
			releases: ['1'],
			tokenDelayMs: 100,
			answer: () => 'one two three four five six seven eight nine ten',
		},
		flow_delay50: {
			releases: ['1'],
			delayMs: 50,
			answer: () => 'ok',
		},
		flow_big: {
			releases: ['1'],
			tokens: (body) => {
				const n = Number.isInteger(body && body.tokens) && body.tokens >= 0 ? body.tokens : 100000;
				return bigTokens(n);
			},
		},
		flow_state: {
			releases: ['1'],
			answer: (body, session) => `Session state: ${JSON.stringify(session.sessionState)}`,
		},
		flow_tools_real: {
			releases: ['1'],
			shape: 'real',
			tools: (body) => [
				{ toolName: 'search', input: { query: textOf(body) }, output: { hits: 2 } },
				{ toolName: 'calculator', input: { expression: '1/0' }, error: 'Division by zero' },
			],
			answer: (body) =>
				`I searched for "${textOf(body)}" and found 2 hits; the calculator failed (Division by zero).`,
		},
		flow_agent: {
			releases: ['1'],
			shape: 'real',
			toolArgumentTokens: true,
			preambleTokens: ['Let ', 'me ', 'look ', 'that ', 'up. '],
			tools: (body) => [
				{ toolName: 'search', input: { query: textOf(body) }, output: { hits: 2 } },
			],
			answer: (body) => `Found 2 hits for "${textOf(body)}".`,
		},
		flow_wait: {
			releases: ['1'],
			delayMs: waitMsOf,
			answer: (body) => `Waited ${waitMsOf(body)} ms`,
		},
		flow_typing: {
			releases: ['1'],
			tokenDelayMs: TYPING_DELAY_MS,
			answer: (body) =>
				`You said: ${textOf(body)}. ` +
				'This answer arrives word by word at about the pace a person reads, so that a chat ' +
				'window shows it growing. It is long enough to take a few seconds: one, two, three, ' +
				'four, five, six, seven, eight, nine, ten, eleven, twelve, thirteen, fourteen, fifteen, ' +
				'sixteen, seventeen, eighteen, nineteen, twenty, twenty-one, twenty-two, twenty-three, ' +
				'twenty-four, twenty-five, twenty-six, twenty-seven, twenty-eight, twenty-nine, thirty. ' +
				'A streaming node forwards each word as it comes, and the last line of the stream still ' +
				'carries the whole answer, so nothing is lost if a word was missed on the way.',
		},
	};
}

/**
 * @param {string} id
 * @param {FlowDef} def
 */
function normalizeFlow(id, def) {
	if (!def || (typeof def.answer !== 'function' && typeof def.tokens !== 'function')) {
		throw new Error(`defineFlow(${id}): def needs answer(body, session, options) or tokens(body)`);
	}
	if (def.shape !== undefined && def.shape !== 'legacy' && def.shape !== 'real') {
		throw new Error(`defineFlow(${id}): shape must be 'legacy' or 'real'`);
	}
	const releases =
		Array.isArray(def.releases) && def.releases.length > 0 ? def.releases.map(String) : ['1'];
	return { ...def, id, releases, defaultRelease: releases[releases.length - 1] };
}

/**
 * Validate the run request body; returns { body, options, stream, events }.
 * @param {any} payload
 */
function validateRun(payload) {
	if (!isPlainObject(payload))
		throw badRequest('Request body must be a JSON object { "body": {...}, "options": {...} }');
	const { body } = payload;
	if (body === undefined || body === null) throw badRequest('"body" is required');
	if (!isPlainObject(body)) throw badRequest('"body" must be an object');
	const options = payload.options === undefined || payload.options === null ? {} : payload.options;
	if (!isPlainObject(options)) throw badRequest('"options" must be an object');

	const sid = options.flow_session_id;
	if (sid !== undefined && sid !== null && (typeof sid !== 'string' || sid === '')) {
		throw badRequest('"options.flow_session_id" must be a non-empty string or null');
	}
	if (
		options.version !== undefined &&
		options.version !== null &&
		typeof options.version !== 'string'
	) {
		throw badRequest('"options.version" must be a string');
	}
	const stream = options.stream === undefined || options.stream === null ? 'none' : options.stream;
	if (stream !== 'none' && stream !== 'http')
		throw badRequest('"options.stream" must be "none" or "http"');

	/** @type {Set<string> | null} */
	let events = null;
	if (options.stream_events !== undefined && options.stream_events !== null) {
		if (!Array.isArray(options.stream_events))
			throw badRequest('"options.stream_events" must be an array of strings');
		for (const t of options.stream_events) {
			if (!TAGS.includes(t)) {
				throw badRequest(
					`"options.stream_events" contains unknown event "${t}"; known: ${TAGS.join(', ')}`,
				);
			}
		}
		events = new Set(options.stream_events);
	}
	if (
		options.override !== undefined &&
		options.override !== null &&
		!isPlainObject(options.override)
	) {
		throw badRequest('"options.override" must be an object');
	}
	const ev = options.evalOptions;
	if (ev !== undefined && ev !== null) {
		if (!isPlainObject(ev)) throw badRequest('"options.evalOptions" must be an object');
		if (ev.runMode !== undefined && !['async', 'block', 'skip'].includes(ev.runMode)) {
			throw badRequest('"options.evalOptions.runMode" must be "async", "block" or "skip"');
		}
		if (ev.runs !== undefined && ev.runs !== null) {
			if (!Array.isArray(ev.runs)) throw badRequest('"options.evalOptions.runs" must be an array');
			ev.runs.forEach((/** @type {any} */ r, /** @type {number} */ i) => {
				if (!isPlainObject(r) || typeof r.flowEvalId !== 'string' || r.flowEvalId === '') {
					throw badRequest(
						`"options.evalOptions.runs[${i}].flowEvalId" must be a non-empty string`,
					);
				}
				if (
					r.flowEvalExternalInput !== undefined &&
					r.flowEvalExternalInput !== null &&
					!isPlainObject(r.flowEvalExternalInput)
				) {
					throw badRequest(
						`"options.evalOptions.runs[${i}].flowEvalExternalInput" must be an object`,
					);
				}
			});
		}
	}
	return { body, options, stream, events };
}

const ABORT = Symbol('stream aborted');

/** Writes to a streaming response with backpressure, optional byte-level splitting. */
class StreamOut {
	/**
	 * @param {any} ctx
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

/**
 * Handle POST .../flows/{flow_id}/run. Auth and account/project checks are already done.
 * @param {any} ctx
 * @param {import('node:http').IncomingMessage} req
 * @param {import('node:http').ServerResponse} res
 * @param {string} flowId
 * @param {any} payload parsed JSON body
 */
async function handleRun(ctx, req, res, flowId, payload) {
	const flow = ctx.flows.get(flowId);
	if (!flow) throw notFound(`Flow '${flowId}' not found in project '${ctx.projectId}'`);
	const { body, options, stream, events } = validateRun(payload);

	const version =
		options.version === undefined || options.version === null
			? flow.defaultRelease
			: options.version;
	if (!flow.releases.includes(version)) {
		throw notFound(
			`Release '${version}' of flow '${flowId}' not found (releases: ${flow.releases.join(', ')})`,
		);
	}

	/** @type {any} */
	let session;
	if (options.flow_session_id) {
		// an expired session is refused while the run request loads, before the flow runs
		const [refused] = takeFaults(ctx, req, 'run', SESSION_FAULTS, true);
		if (refused) {
			const status = Number(refused.params.status) >= 400 ? Number(refused.params.status) : 500;
			throw new HttpError(status, `Error loading session ${options.flow_session_id}`);
		}
		session = ctx.store.getSession(options.flow_session_id);
		if (!session)
			throw badRequest(`Error loading session ${options.flow_session_id}: session not found`);
	} else {
		session = ctx.store.createSession(flowId, {});
	}
	const history = ctx.store.history(session.id).slice();
	const sessionView = { ...session, history, runNumber: history.length + 1 };

	const faults = stream === 'http' ? takeFaults(ctx, req, 'run', STREAM_FAULTS) : [];

	// compute the answer first: a throwing flow gives 500 before anything streams
	const bigFault = findFault(faults, 'big-stream');
	/** @type {string[]} */
	let tokens;
	/** @type {string} */
	let answer;
	/** @type {ToolCall[]} */
	let tools;
	/** @type {string[]} */
	let preamble;
	/** @type {number} */
	let delayMs;
	const real = flow.shape === 'real';
	try {
		if (bigFault) {
			tokens = bigTokens(
				Number(bigFault.params.tokens) >= 0 ? Number(bigFault.params.tokens) : 100000,
			);
			answer = tokens.join('');
		} else if (typeof flow.tokens === 'function') {
			tokens = flow.tokens(body);
			answer =
				typeof flow.answer === 'function'
					? String(flow.answer(body, sessionView, options))
					: tokens.join('');
		} else {
			answer = String(flow.answer(body, sessionView, options));
			tokens = splitTokens(answer);
		}
		tools = typeof flow.tools === 'function' ? flow.tools(body) : flow.tools || [];
		preamble =
			typeof flow.preambleTokens === 'function'
				? flow.preambleTokens(body)
				: flow.preambleTokens || [];
		delayMs = typeof flow.delayMs === 'function' ? Number(flow.delayMs(body)) : flow.delayMs || 0;
	} catch (err) {
		throw new HttpError(500, `Flow '${flowId}' failed: ${/** @type {Error} */ (err).message}`);
	}

	const startMs = Date.now();
	const startTime = iso(startMs);
	const id = newId('req');
	const ev = options.evalOptions;
	const rec = {
		tags: [],
		id,
		flow_id: flowId,
		flow_session_id: session.id,
		body,
		requestParams: { stream },
		runOptions: options,
		override: options.override || {},
		status: 'running',
		top_request_id: id,
		userMessage: { id: newId('msg'), date: startTime, role: 'user', content: textOf(body) },
		flow_history_id: `fh_${flowId}_${version}`,
		version,
		response: {},
		aiMessage: {
			id: newId('msg'),
			date: startTime,
			role: 'assistant',
			steps: /** @type {any[]} */ ([]),
			content: '',
		},
		eval_job_id: ev && ev.runMode !== 'skip' ? newId('evj') : null,
		startTime,
		endTime: /** @type {string|null} */ (null),
		duration: /** @type {number|null} */ (null),
		created: startTime,
		modified: startTime,
		owner_uid: ctx.ownerUid,
		modified_uid: ctx.ownerUid,
		account_id: ctx.accountId,
		project_id: ctx.projectId,
	};
	ctx.store.put(rec);

	const isError = flow.status === 'error';
	/** The record as it will be once the run ends (a copy: `rec` itself is still running). */
	const completedRecord = () => {
		const endMs = Date.now();
		const end = iso(endMs);
		return {
			...rec,
			status: isError ? 'error' : 'complete',
			response: isError ? { error: flow.errorMessage || 'Flow failed' } : { text_output: answer },
			aiMessage: { ...rec.aiMessage, content: answer, date: end },
			endTime: end,
			duration: endMs - startMs,
			modified: end,
		};
	};
	/** @type {ReturnType<typeof completedRecord> | null} */
	let completed = null;
	const finalize = () => {
		Object.assign(rec, completed || completedRecord());
		session.modified = rec.endTime;
		ctx.store.reindex(rec);
	};

	if (stream !== 'http') {
		if (delayMs) await sleep(ctx, delayMs);
		rec.aiMessage.steps = tools.map((t) =>
			real ? finishedRealStep(t, newId('step'), startTime) : legacyStep(t, newId('run')),
		);
		finalize();
		sendJson(res, 200, rec);
		return;
	}

	// ---- streaming ----
	const out = new StreamOut(ctx, res, !!findFault(faults, 'split-utf8'));
	const entry = /** @type {any} */ (res).logEntry;
	if (entry) entry.status = 200;
	res.writeHead(200, {
		'Content-Type': 'application/x-ndjson',
		'Transfer-Encoding': 'chunked',
		'Cache-Control': 'no-cache',
		Connection: 'keep-alive',
	});
	res.flushHeaders();

	const drop = findFault(faults, 'drop');
	const stall = findFault(faults, 'stall');
	const malformed = findFault(faults, 'malformed');
	const huge = findFault(faults, 'huge-line');
	const delayFault = findFault(faults, 'token-delay');
	const tokenDelay = delayFault ? Number(delayFault.params.ms ?? 50) : flow.tokenDelayMs || 0;
	if (tokenDelay === 0 && !out.split && tokens.length > 1000) out.batchBytes = 16384;
	const after = (/** @type {any} */ f, /** @type {number} */ d) =>
		f && Number.isFinite(Number(f.params.afterEvents)) ? Number(f.params.afterEvents) : d;
	const dropAfter = after(drop, 3);
	const stallAfter = after(stall, 3);
	const malformedAfter = after(malformed, 3);
	const hugeAfter = after(huge, 1);
	let count = 0;
	let malformedDone = false;
	let hugeDone = false;

	/** Fault hooks, run after each event line and once before the final line. */
	const checkpoint = async (/** @type {boolean} */ final) => {
		if (malformed && !malformedDone && (count >= malformedAfter || final)) {
			malformedDone = true;
			await out.write('{"tag":"onNewToken","data":#!garbage{{not json\n');
		}
		if (huge && !hugeDone && (count >= hugeAfter || final)) {
			hugeDone = true;
			const size = Number(huge.params.bytes) > 64 ? Number(huge.params.bytes) : 20 * 1024 * 1024;
			const head = Buffer.from('{"tag":"onNewToken","data":{"token":"');
			const tail = Buffer.from('"}}\n');
			const line = Buffer.alloc(size, 'x');
			head.copy(line, 0);
			tail.copy(line, size - tail.length);
			count += 1;
			await out.write(line);
		}
		if (drop && (count >= dropAfter || final)) {
			await out.drop();
			throw ABORT;
		}
		if (stall && (count >= stallAfter || final)) {
			await out.flush();
			await out.wait(); // until the client aborts or emu.close()
			throw ABORT;
		}
	};

	const emit = async (/** @type {string} */ tag, /** @type {any} */ data) => {
		if (events && !events.has(tag)) return;
		await out.write(`${JSON.stringify({ tag, data })}\n`);
		count += 1;
		await checkpoint(false);
	};

	const log = (/** @type {string} */ level, /** @type {string} */ message) => {
		const now = iso();
		return emit('onLog', { level, message, time: now, timestamp: now });
	};
	const emitTokens = async (/** @type {string[]} */ list) => {
		for (let i = 0; i < list.length; i++) {
			if (tokenDelay > 0 && i > 0) await sleep(ctx, tokenDelay);
			if (out.closed) throw ABORT;
			await emit('onNewToken', { token: list[i] });
		}
	};
	/** One tool call in the real shape: the step while its arguments are written, executing, done. */
	const realTool = async (/** @type {ToolCall} */ tool) => {
		const stepId = newId('step');
		const at = iso();
		await emit('onIntermediateStepUpdate', realStep(tool, stepId, 'streaming_args', at));
		if (flow.toolArgumentTokens) {
			for (const partial of argumentPrefixes(tool))
				await emit('onNewToken', { toolArguments: partial });
		}
		await emit('onIntermediateStepUpdate', realStep(tool, stepId, 'executing', at));
		await emit('onToolStart', {
			toolName: tool.toolName,
			input: tool.input ?? {},
			runId: stepId,
			stepId,
		});
		if (tool.error !== undefined)
			await emit('onToolError', {
				toolName: tool.toolName,
				error: tool.error,
				runId: stepId,
				stepId,
			});
		else
			await emit('onToolEnd', {
				toolName: tool.toolName,
				output: tool.output ?? null,
				runId: stepId,
				stepId,
			});
		const done = finishedRealStep(tool, stepId, at);
		await emit('onIntermediateStepUpdate', done);
		rec.aiMessage.steps.push(done);
	};

	try {
		await checkpoint(false);
		if (real) await emit('onFlowRequestStart', JSON.parse(JSON.stringify(rec)));
		await emit('onFlowStart', { flowId, requestId: id, sessionId: session.id, version, startTime });
		await log('info', `Running flow ${flowId} (release ${version})`);
		if (delayMs) await sleep(ctx, delayMs);
		await emitTokens(preamble);
		for (const tool of tools) {
			if (real) {
				await realTool(tool);
				continue;
			}
			const runId = newId('run');
			const step = legacyStep(tool, runId);
			await emit('onIntermediateStepUpdate', {
				type: 'tool',
				status: 'start',
				toolName: tool.toolName,
				runId,
			});
			await emit('onToolStart', { toolName: tool.toolName, input: tool.input ?? {}, runId });
			if (tool.error !== undefined)
				await emit('onToolError', { toolName: tool.toolName, error: tool.error, runId });
			else await emit('onToolEnd', { toolName: tool.toolName, output: tool.output ?? null, runId });
			await emit('onIntermediateStepUpdate', { ...step, type: 'tool' });
			rec.aiMessage.steps.push(step);
		}
		await emitTokens(tokens);
		if (isError) await log('error', flow.errorMessage || 'Flow failed');
		await emit('onFlowEnd', {
			flowId,
			requestId: id,
			status: isError ? 'error' : 'complete',
			duration: Date.now() - startMs,
		});
		if (real) {
			completed = completedRecord();
			await emit('onFlowRequestEnd', JSON.parse(JSON.stringify(completed)));
		}
		await checkpoint(true);
		finalize();
		if (!findFault(faults, 'no-final')) await out.write(`${JSON.stringify(rec)}\n`);
		await out.end();
	} catch (err) {
		if (err !== ABORT) {
			if (!res.destroyed) res.destroy(/** @type {Error} */ (err));
			throw err;
		}
	}
}

module.exports = { TAGS, builtinFlows, normalizeFlow, handleRun, splitTokens, validateRun };
