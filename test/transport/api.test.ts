/**
 * The transport's contract, endpoint by endpoint: the exact request each function of api.ts
 * hands to n8n's helper (method, URL, body, authentication, timeout, signal), as n8n's own
 * vendor nodes test their transport. No server: the helper is a recording fake, so this runs
 * in milliseconds; the engine tests send the same requests to the emulator over real HTTP.
 */
import type { IDataObject, IHttpRequestOptions } from 'n8n-workflow';

import {
	createSession,
	exportRequestsPage,
	getIndexStatus,
	getTemporarySignedUrl,
	loadDocumentByLogicalPath,
	loadRequestsBySession,
	queryIndexMetadata,
	uploadDocument,
} from '../../nodes/shared/transport/api';
import { runFlow } from '../../nodes/shared/transport/run';
import { downloadSignedUrl } from '../../nodes/shared/transport/download';
import { CREDENTIAL, fakeContext } from '../helpers/fakeContext';

const PROJECT = 'https://api.botdojo.test/api/v1/accounts/acc%201/projects/proj_1';

/** A run's settings besides its flow, input and options. */
const RUN = {
	itemIndex: 0,
	streaming: false,
	timeoutMs: 0,
	idleTimeoutMs: 0,
	maxLineChars: 1024,
	retry: { maxAttempts: 1, maxTotalWaitMs: 0 },
	failOnFlowError: true,
	words: { timeout: 'T', idleTimeout: 'I', maxLine: 'M', onFlowError: 'O', rateLimit: 'R' },
};

/** The credential as handed to n8n's helper: n8n then signs the request with its `authenticate`. */
const AUTH = {
	credentialsDecrypted: {
		id: 'cred_1',
		name: 'BotDojo account',
		type: 'botDojoApi',
		data: CREDENTIAL,
	},
};

/** The request of a positional endpoint: POST `{ params }` as JSON text, failures not thrown. */
function positional(path: string, params: unknown[], signal: AbortSignal): IHttpRequestOptions {
	return {
		method: 'POST',
		url: `${PROJECT}/${path}`,
		body: JSON.stringify({ params }),
		headers: { 'content-type': 'application/json' },
		json: true,
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
		timeout: undefined,
		abortSignal: signal,
		// Read and parsed by the transport (request.ts): n8n's parsing holds more memory.
		encoding: 'stream',
		// No redirect is followed: the key (and the body) go only to the Base URL.
		disableFollowRedirect: true,
		sendCredentialsOnCrossOriginRedirect: false,
	};
}

/**
 * The signal a request but a run or an upload is sent with: Stop's, joined with the wait for
 * BotDojo's answer to begin (request.ts `beginWithin`); the last test shows that Stop ends it.
 */
const STOP_OR_BOUND = expect.any(AbortSignal);

describe('transport contract: the request of each BotDojo endpoint', () => {
	it('flow_sessions/createSession: [flowId, data], an object back', async () => {
		const { ctx, calls } = fakeContext({ results: { id: 'ses_1' } });
		const data = { customer: { variables: { plan: 'pro' } } };
		await expect(createSession(ctx, 'flow_1', data, 2)).resolves.toEqual({ id: 'ses_1' });
		expect(calls).toEqual([
			{
				type: 'botDojoApi',
				options: positional('flow_sessions/createSession', ['flow_1', data], STOP_OR_BOUND),
				auth: AUTH,
				contextSignal: STOP_OR_BOUND,
			},
		]);
	});

	it('flow_requests/loadByFlowSession: [flowId, sessionId], an array back', async () => {
		const { ctx, calls } = fakeContext({ results: [{ id: 'req_1' }] });
		await expect(loadRequestsBySession(ctx, 'flow_1', 'ses_1')).resolves.toEqual([{ id: 'req_1' }]);
		expect(calls.map((call) => call.options)).toEqual([
			positional('flow_requests/loadByFlowSession', ['flow_1', 'ses_1'], STOP_OR_BOUND),
		]);
	});

	it('flow_requests/export: [flowId, cursor, limit, from, to], absent middle ones as null', async () => {
		const page = { results: [{ id: 'req_1' }], nextCursor: 'abc=', hasMore: true };
		const { ctx, calls } = fakeContext(page, { results: [], hasMore: false });
		await expect(
			exportRequestsPage(ctx, {
				flowId: 'flow_1',
				limit: 1000,
				toDate: '2026-01-01T00:00:00.000Z',
			}),
		).resolves.toEqual(page);
		await exportRequestsPage(ctx, { flowId: 'flow_1', afterCursor: 'abc=', limit: 5 });
		expect(calls.map((call) => call.options)).toEqual([
			positional(
				'flow_requests/export',
				['flow_1', null, 1000, null, '2026-01-01T00:00:00.000Z'],
				STOP_OR_BOUND,
			),
			positional('flow_requests/export', ['flow_1', 'abc=', 5], STOP_OR_BOUND),
		]);
	});

	it('flows/{flowId}/run: { body, options } with the session, streamed, the run bounding it', async () => {
		const { ctx, calls } = fakeContext({ status: 'complete' });
		const cancel = new AbortController();
		await runFlow(ctx, {
			...RUN,
			flowId: 'flow/1',
			sessionId: 'ses_1',
			body: { text_input: 'Hi' },
			options: { stream: 'http' },
			streaming: true,
			cancelSignal: cancel.signal,
		});
		// The run's own signal: ended by its Stop (and its deadline), not the execution's.
		const run = { signal: calls[0].options.abortSignal as AbortSignal };
		expect(run.signal).not.toBe(cancel.signal);
		expect(calls).toEqual([
			{
				type: 'botDojoApi',
				options: {
					...positional('flows/flow%2F1/run', [], run.signal),
					body: JSON.stringify({
						body: { text_input: 'Hi' },
						options: { flow_session_id: 'ses_1', stream: 'http' },
					}),
					// 0: n8n's own 300 s default is off; the run's deadline bounds it.
					timeout: 0,
					encoding: 'stream',
				},
				auth: AUTH,
				// n8n's helper applies the context's signal, not the request's: both are the run's.
				contextSignal: run.signal,
			},
		]);
	});

	it('flows/{flowId}/run without a session: options as given, the answer read by the run', async () => {
		const { ctx, calls } = fakeContext({ status: 'complete' });
		await runFlow(ctx, { ...RUN, flowId: 'flow_1', body: {}, options: { stream: 'none' } });
		expect(JSON.parse(calls[0].options.body as string)).toEqual({
			body: {},
			options: { stream: 'none' },
		});
		// A blocking run's answer is read by the run too, within its Timeout and Max Stream Line.
		expect(calls[0].options.encoding).toBe('stream');
	});

	it('documents/upload-file: multipart with the named fields, redirects not followed', async () => {
		const { ctx, calls } = fakeContext({ results: { id: 'doc_1' } });
		const file = new Blob(['%PDF'], { type: 'application/pdf' });
		const record = await uploadDocument(
			ctx,
			{ file, fileName: 'a.pdf', logicalPath: 'docs/a.pdf', meta: { source: 'crm' } },
			1,
		);
		expect(record).toEqual({ id: 'doc_1' });
		const { body, ...options } = calls[0].options;
		expect(options).toEqual({
			method: 'POST',
			url: `${PROJECT}/documents/upload-file`,
			json: false,
			returnFullResponse: true,
			ignoreHttpStatusErrors: true,
			timeout: undefined,
			// Stop's signal joined with the bound on the answer's start (1 s more per 64 KiB sent).
			abortSignal: STOP_OR_BOUND,
			encoding: 'stream',
			disableFollowRedirect: true,
			sendCredentialsOnCrossOriginRedirect: false,
		});
		const form = body as unknown as FormData;
		const names = Array.from(form as unknown as Iterable<[string, unknown]>, ([name]) => name);
		expect(names).toEqual(['document', 'fileName', 'logicalPath', 'meta']);
		expect((form.get('document') as File).name).toBe('a.pdf');
		expect(await (form.get('document') as File).text()).toBe('%PDF');
		expect(form.get('fileName')).toBe('a.pdf');
		expect(form.get('logicalPath')).toBe('docs/a.pdf');
		expect(form.get('meta')).toBe('{"source":"crm"}');
		expect(calls[0].auth).toEqual(AUTH);
	});

	it('documents/loadByLogicalPath: [logicalPath], an object back', async () => {
		const { ctx, calls } = fakeContext({ results: { id: 'doc_1' } });
		await loadDocumentByLogicalPath(ctx, 'docs/a.pdf');
		expect(calls.map((call) => call.options)).toEqual([
			positional('documents/loadByLogicalPath', ['docs/a.pdf'], STOP_OR_BOUND),
		]);
	});

	it('documents/getTemporarySignedUrl: [document, expires], a non-empty text back', async () => {
		const { ctx, calls } = fakeContext(
			{ results: 'https://files.test/a?sig=1' },
			{
				results: '',
			},
		);
		const document: IDataObject = { id: 'doc_1', logicalPath: 'docs/a.pdf' };
		const expires = '2030-01-01T00:00:00.000Z';
		await expect(getTemporarySignedUrl(ctx, document, expires)).resolves.toBe(
			'https://files.test/a?sig=1',
		);
		expect(calls.map((call) => call.options)).toEqual([
			positional('documents/getTemporarySignedUrl', [document, expires], STOP_OR_BOUND),
		]);
		await expect(getTemporarySignedUrl(ctx, document, expires)).rejects.toThrow(
			'BotDojo answered without a download link',
		);
	});

	it('indexes/getStatus and indexes/queryMetadata: [indexId] and [indexId, query]', async () => {
		const { ctx, calls } = fakeContext({ results: { ready: true } }, { results: [] });
		await expect(getIndexStatus(ctx, 'idx_1')).resolves.toEqual({ ready: true });
		await expect(queryIndexMetadata(ctx, 'idx_1', { page: { $gte: 2 } })).resolves.toEqual([]);
		expect(calls.map((call) => call.options)).toEqual([
			positional('indexes/getStatus', ['idx_1'], STOP_OR_BOUND),
			positional('indexes/queryMetadata', ['idx_1', { page: { $gte: 2 } }], STOP_OR_BOUND),
		]);
	});

	it('a signed link is fetched without the credential, as a stream, at the address checked, redirects checked here', async () => {
		const { ctx, calls } = fakeContext('bytes');
		const url = 'https://files.test/a.pdf?sig=1';
		await downloadSignedUrl(ctx, url, Date.now() + 60_000, { itemIndex: 0 });
		expect(calls).toEqual([
			{
				options: {
					method: 'GET',
					url: 'https://93.184.215.14/a.pdf?sig=1',
					headers: { host: 'files.test' },
					agentOptions: { servername: 'files.test' },
					encoding: 'stream',
					disableFollowRedirect: true,
					returnFullResponse: true,
					ignoreHttpStatusErrors: true,
					timeout: undefined,
					abortSignal: STOP_OR_BOUND,
				},
			},
		]);
	});

	it('the signal handed to n8n is ended by Stop, on the request and on its context', async () => {
		const { ctx, calls, cancel } = fakeContext({ results: { ready: true } });
		await getIndexStatus(ctx, 'idx_1');
		const [{ options, contextSignal }] = calls;
		expect(contextSignal).toBe(options.abortSignal);
		expect(contextSignal?.aborted).toBe(false);
		cancel.abort();
		expect(contextSignal?.aborted).toBe(true);
	});
});
