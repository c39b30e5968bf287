/**
 * The project a request goes to: the credential's fields, read once per node execution, its
 * Base URL checked before anything is sent, and the URLs below the project; and the
 * transport's shared types (this file imports nothing of the transport but hosts.ts, so
 * request.ts and errors.ts both use them without a cycle).
 */
import {
	NodeOperationError,
	type IAdditionalCredentialOptions,
	type ICredentialDataDecryptedObject,
	type IExecuteFunctions,
	type IExecuteSingleFunctions,
	type ILoadOptionsFunctions,
	type IPollFunctions,
} from 'n8n-workflow';

export const CREDENTIAL_TYPE = 'botDojoApi';

/**
 * A Base URL that would send the API key unencrypted to another machine: http:// to any host
 * but this computer's loopback (localhost, 127.0.0.0/8, [::1]). Anything after the host but a
 * port, path, query or fragment (e.g. `http://127.0.0.1@example.com`) counts as remote. A regular
 * expression, not URL parsing, because the credential's declarative Test request (an n8n
 * expression, which cannot import code) checks the same thing with it.
 */
export const REMOTE_HTTP =
	/^http:\/\/(?!(?:localhost|127(?:\.\d{1,3}){3}|\[::1\])(?::\d+)?(?:[/?#]|$))/i;

interface CredentialOfRun {
	fields: ProjectCredentials;
	/** The decrypted credential handed to n8n's request helper, which then does not read (and,
	 *  in n8n, fetch and decrypt) the credential again for every request. */
	auth: IAdditionalCredentialOptions;
	baseUrlProblem?: string;
}

/** One read per node execution (one context object), not one or two per request. */
const credentialOfRun = new WeakMap<object, Promise<CredentialOfRun>>();

/** The key of each execution whose credential was read: answers are quoted without it. */
const keyOfRun = new WeakMap<object, string>();

/** Contexts derived from an execution's context (see `withCancelSignal`) → that context. */
const executionOf = new WeakMap<object, BotDojoContext>();

/**
 * The execution's context with `getExecutionCancelSignal` answering `signal`: n8n's request
 * helper replaces a request's own signal by that one. It shares the execution's credential read.
 */
export function withCancelSignal<T extends BotDojoContext>(ctx: T, signal: AbortSignal): T {
	const derived = Object.create(ctx, { getExecutionCancelSignal: { value: () => signal } }) as T;
	executionOf.set(derived, executionOf.get(ctx) ?? ctx);
	return derived;
}

function readOnce(derived: BotDojoContext): Promise<CredentialOfRun> {
	const ctx = executionOf.get(derived) ?? derived;
	let pending = credentialOfRun.get(ctx);
	if (!pending) {
		pending = ctx.getCredentials(CREDENTIAL_TYPE).then((data: ICredentialDataDecryptedObject) => {
			const fields = projectFields(data);
			keyOfRun.set(ctx, fields.apiKey);
			const { id, name } = ctx.getNode().credentials?.[CREDENTIAL_TYPE] ?? {};
			const credentialsDecrypted = { id: id ?? '', name: name ?? '', type: CREDENTIAL_TYPE, data };
			return {
				fields,
				auth: { credentialsDecrypted },
				baseUrlProblem: baseUrlProblem(fields.baseUrl),
			};
		});
		credentialOfRun.set(ctx, pending);
		pending.catch(() => credentialOfRun.delete(ctx));
	}
	return pending;
}

/**
 * The API key of the execution, once its credential was read (every request reads it first),
 * to redact it from a quoted answer; '' before, when there is no answer to quote.
 */
export function knownApiKey(ctx: BotDojoContext): string {
	return keyOfRun.get(executionOf.get(ctx) ?? ctx) ?? '';
}

/** The credential's fields and what n8n's request helper needs to authenticate with it; throws
 *  before anything is sent when the Base URL cannot be used. */
export async function readCredentialOfRun(
	ctx: BotDojoContext,
): Promise<Omit<CredentialOfRun, 'baseUrlProblem'>> {
	const credential = await readOnce(ctx);
	if (credential.baseUrlProblem) {
		throw new NodeOperationError(
			ctx.getNode(),
			`The Base URL of the BotDojo API credential ${credential.baseUrlProblem}`,
			{
				description:
					'Open the credential and enter the address of the BotDojo API with its scheme, e.g. https://api.botdojo.com/api/v1. No request was sent.',
			},
		);
	}
	return credential;
}

/** The credential's fields as the transport uses them: ids and Base URL trimmed, the key as typed. */
export function projectFields(data: ICredentialDataDecryptedObject): ProjectCredentials {
	return {
		baseUrl: String(data.baseUrl ?? '').trim(),
		accountId: String(data.accountId ?? '').trim(),
		projectId: String(data.projectId ?? '').trim(),
		apiKey: String(data.apiKey ?? ''),
	};
}

/** The credential's fields, with a Base URL that is checked before anything is sent. */
export async function readCredentials(ctx: BotDojoContext): Promise<ProjectCredentials> {
	return (await readCredentialOfRun(ctx)).fields;
}

/** Why a Base URL cannot be used, or undefined when it can. */
export function baseUrlProblem(baseUrl: string): string | undefined {
	if (baseUrl === '') return 'is empty';
	if (!/^https?:\/\//i.test(baseUrl)) return `"${baseUrl}" does not start with https://`;
	try {
		new URL(baseUrl);
	} catch {
		return `"${baseUrl}" is not a valid address`;
	}
	if (REMOTE_HTTP.test(baseUrl))
		return `"${baseUrl}" starts with http://, which would send the API key unencrypted: use https:// (http:// is accepted only for this computer: localhost, 127.0.0.1, [::1])`;
	return undefined;
}

/** `{base}/accounts/{account}/projects/{project}/{segments...}`, every segment URL-encoded. */
export function projectUrl(
	credentials: Pick<ProjectCredentials, 'baseUrl' | 'accountId' | 'projectId'>,
	segments: readonly string[],
): string {
	const base = credentials.baseUrl.replace(/\/+$/, '');
	const path = ['accounts', credentials.accountId, 'projects', credentials.projectId, ...segments];
	return `${base}/${path.map(encodeURIComponent).join('/')}`;
}

export type BotDojoContext =
	| IExecuteFunctions
	| IExecuteSingleFunctions
	| IPollFunctions
	| ILoadOptionsFunctions;

/** Ids that a request used, so that a 404 can say which of them BotDojo did not find. */
export interface RequestSubject {
	flowId?: string;
	sessionId?: string;
	indexId?: string;
	logicalPath?: string;
	documentId?: string;
}

export interface RequestSettings {
	subject?: RequestSubject;
	itemIndex?: number;
	/** Whether a failure after the request was accepted may be retried (false for running a flow). */
	repeatable?: boolean;
	/** Total timeout in milliseconds. */
	timeout?: number;
	abortSignal?: AbortSignal;
	retry?: RetryPolicy;
	/** The answer's body is left as a stream for the caller (a run reads its own answer);
	 *  otherwise request.ts reads it within ANSWER_LIMITS and parses it. */
	readByCaller?: boolean;
	/** What the user can change about a 429, in the words of the calling node (the transport
	 *  names no node option); "Send fewer requests at once" when absent. */
	rateLimitAdvice?: string;
}

export interface RetryPolicy {
	/** Attempts in all, the first included. */
	maxAttempts: number;
	/** Longest wait the retries may add up to, in milliseconds. */
	maxTotalWaitMs: number;
}

export interface ProjectCredentials {
	baseUrl: string;
	accountId: string;
	projectId: string;
	apiKey: string;
}

export interface FullResponse {
	statusCode: number;
	headers: Record<string, string | string[] | undefined>;
	body: unknown;
}

/** An endpoint as path segments below the project; ids among them are encoded by projectUrl. */
export type Endpoint = readonly string[];
