/** The project a request goes to: the credential, read once per node execution, its Base URL
 *  checked before anything is sent, the URLs below the project; and the transport's types. */
import { createHmac } from 'crypto';

import type {
	IAdditionalCredentialOptions,
	IExecuteFunctions,
	IExecuteSingleFunctions,
	ILoadOptionsFunctions,
	IPollFunctions,
} from 'n8n-workflow';

import { REMOTE_HTTP } from '../../../credentials/BotDojoApi.credentials';

import { nodeError } from './errors';

export const CREDENTIAL_TYPE = 'botDojoApi';

/** Matched in any case and encoding, a shorter key would match ordinary words (base64: ≥ 15). */
export const MIN_KEY_CHARS = 12;

/** Far above any key seen (BotDojo's look like the emulator's ~30 characters), below what HTTP
 *  headers commonly carry: a longer one is no BotDojo key. */
const MAX_KEY_CHARS = 1024;

export type BotDojoContext =
	| IExecuteFunctions
	| IExecuteSingleFunctions
	| IPollFunctions
	| ILoadOptionsFunctions;

export type ProjectCredentials = Record<'baseUrl' | 'accountId' | 'projectId' | 'apiKey', string>;

/** Every id kind a request can name: how a message calls it and which node field sets it. One row
 *  a kind, so that a 404 names any id a request used (the credential's two come from errors.ts). */
export const REQUEST_IDS = {
	flowId: { name: 'flow', field: 'Flow ID' },
	sessionId: { name: 'session', field: 'Session ID' },
	indexId: { name: 'index', field: 'Index ID' },
	documentId: { name: 'document', field: 'document' },
	logicalPath: { name: 'logical path', field: 'Logical Path' },
} as const;

/** Ids that a request used, so that a 404 can say which of them BotDojo did not find. */
export type RequestSubject = Partial<Record<keyof typeof REQUEST_IDS, string>>;

/** Attempts in all (the first included), and the longest the waits between may add up to (ms). */
export type RetryPolicy = { maxAttempts: number; maxTotalWaitMs: number };

/** How a request is sent and worded: `repeatable` false for a run (a failure after BotDojo
 *  accepted it is not retried), `timeout` n8n's in ms (0: none), `readByCaller` for a run that
 *  reads its own answer, `rateLimitAdvice` what the user can change about a 429 (node's words). */
export interface RequestSettings {
	subject?: RequestSubject;
	itemIndex?: number;
	repeatable?: boolean;
	timeout?: number;
	abortSignal?: AbortSignal;
	retry?: RetryPolicy;
	readByCaller?: boolean;
	rateLimitAdvice?: string;
}

/** An answer as n8n's helper gives it with `returnFullResponse`. */
export interface FullResponse {
	statusCode: number;
	headers: Record<string, string | string[] | undefined>;
	body: unknown;
}

/** Path segments below the project; projectUrl encodes them. */
export type Endpoint = readonly string[];

/** `auth` is handed to n8n's helper, which then does not fetch and decrypt it per request. */
type CredentialOfRun = { fields: ProjectCredentials; auth: IAdditionalCredentialOptions };

/** Per node execution (its context object): the credential read, and its key once known. */
const credentialOfRun = new WeakMap<object, Promise<CredentialOfRun>>();
const keyOfRun = new WeakMap<object, string>();
/** Contexts made by `withCancelSignal` → the execution's context. */
const executionOf = new WeakMap<object, BotDojoContext>();

/** The context with `getExecutionCancelSignal` answering `signal`, which n8n's request helper
 *  puts on the request in place of the request's own; it shares the credential read. */
export function withCancelSignal<T extends BotDojoContext>(ctx: T, signal: AbortSignal): T {
	const derived = Object.create(ctx, { getExecutionCancelSignal: { value: () => signal } }) as T;
	executionOf.set(derived, executionOf.get(ctx) ?? ctx);
	return derived;
}

/** The credential's fields and n8n's authentication input; throws, before anything is sent,
 *  when the Base URL cannot be used. */
export async function readCredentialOfRun(derived: BotDojoContext) {
	const ctx = executionOf.get(derived) ?? derived;
	let pending = credentialOfRun.get(ctx);
	if (!pending) {
		pending = ctx.getCredentials(CREDENTIAL_TYPE).then((data) => {
			const [baseUrl, accountId, projectId] = ['baseUrl', 'accountId', 'projectId'].map((name) =>
				String(data[name] ?? '').trim(),
			);
			const fields = { baseUrl, accountId, projectId, apiKey: String(data.apiKey ?? '') };
			keyOfRun.set(ctx, fields.apiKey);
			const { id, name = '' } = ctx.getNode().credentials?.[CREDENTIAL_TYPE] ?? {};
			return {
				fields,
				auth: { credentialsDecrypted: { id: id ?? '', name, type: CREDENTIAL_TYPE, data } },
			};
		});
		credentialOfRun.set(ctx, pending);
		pending.catch(() => credentialOfRun.delete(ctx));
	}
	const credential = await pending;
	const { baseUrl, apiKey } = credential.fields;
	// A key of any other length is no BotDojo key, and could not be redacted safely.
	for (const [field, problem, advice] of [
		[
			'Base URL',
			baseUrlProblem(baseUrl),
			'Open the credential and enter the address of the BotDojo API with its scheme, e.g. https://api.botdojo.com/api/v1.',
		],
		[
			'API Key',
			keyLengthProblem(apiKey),
			'Open the credential and paste the key again, exactly as BotDojo showed it under Project Settings → API Keys, without "Bearer".',
		],
	]) {
		if (!problem) continue;
		throw nodeError(ctx, `The ${field} of the BotDojo API credential ${problem}`, {
			description: `${advice} No request was sent.`,
		});
	}
	return credential;
}

/**
 * Signs with the project's key, which never leaves the transport: HMAC-SHA256 of the parts
 * (as JSON), base64url. What only a holder of the key can have written (Keep in Chat Memory's
 * markers) is told from what anyone could.
 */
export async function keySigner(ctx: BotDojoContext) {
	const { apiKey } = (await readCredentialOfRun(ctx)).fields;
	return (parts: unknown[]) =>
		createHmac('sha256', apiKey).update(JSON.stringify(parts)).digest('base64url');
}

/** The execution's key once a request read it, to redact quoted answers; '' before. */
export function knownApiKey(ctx: BotDojoContext) {
	return keyOfRun.get(executionOf.get(ctx) ?? ctx) ?? '';
}

/** Why the credential's key cannot be used (its length), or undefined; never quotes it. */
export function keyLengthProblem(apiKey: string) {
	const { length } = apiKey.trim();
	if (length >= MIN_KEY_CHARS && length <= MAX_KEY_CHARS) return undefined;
	const which = length < MIN_KEY_CHARS ? 'too short' : 'too long';
	return `has ${length} characters, ${which} to be a BotDojo API key (${MIN_KEY_CHARS} to ${MAX_KEY_CHARS})`;
}

/** Why a Base URL cannot be used, or undefined when it can. */
export function baseUrlProblem(baseUrl: string) {
	if (baseUrl === '') return 'is empty';
	if (!/^https?:\/\//i.test(baseUrl)) return `"${baseUrl}" does not start with https://`;
	if (!URL.canParse(baseUrl)) return `"${baseUrl}" is not a valid address`;
	if (REMOTE_HTTP.test(baseUrl))
		return `"${baseUrl}" starts with http://, which would send the API key unencrypted: use https:// (http:// is accepted only for this computer: localhost, 127.0.0.1, [::1])`;
	return undefined;
}

/** `{base}/accounts/{account}/projects/{project}/{segments...}`, every segment URL-encoded. */
export function projectUrl(project: Omit<ProjectCredentials, 'apiKey'>, segments: Endpoint) {
	const path = ['accounts', project.accountId, 'projects', project.projectId, ...segments];
	return `${project.baseUrl.replace(/\/+$/, '')}/${path.map(encodeURIComponent).join('/')}`;
}
