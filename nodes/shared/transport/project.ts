/**
 * The project a request goes to: the credential, read once per node execution, its Base URL
 * checked before anything is sent, the URLs below the project; and the transport's types.
 */
import {
	NodeOperationError,
	type IAdditionalCredentialOptions,
	type IExecuteFunctions,
	type IExecuteSingleFunctions,
	type ILoadOptionsFunctions,
	type IPollFunctions,
} from 'n8n-workflow';

export const CREDENTIAL_TYPE = 'botDojoApi';

/**
 * http:// to another host than this computer's loopback (localhost, 127.0.0.0/8, [::1]), which
 * would send the key unencrypted; anything after the host but a port, path, query or fragment
 * (`http://127.0.0.1@example.com`) counts as remote. A regular expression because the
 * credential's declarative Test (an n8n expression, which cannot import code) uses it too.
 */
export const REMOTE_HTTP =
	/^http:\/\/(?!(?:localhost|127(?:\.\d{1,3}){3}|\[::1\])(?::\d+)?(?:[/?#]|$))/i;

export type BotDojoContext =
	| IExecuteFunctions
	| IExecuteSingleFunctions
	| IPollFunctions
	| ILoadOptionsFunctions;

export interface ProjectCredentials {
	baseUrl: string;
	accountId: string;
	projectId: string;
	apiKey: string;
}

/** Ids that a request used, so that a 404 can say which of them BotDojo did not find. */
export interface RequestSubject {
	flowId?: string;
	sessionId?: string;
	indexId?: string;
	logicalPath?: string;
	documentId?: string;
}

export interface RetryPolicy {
	/** Attempts in all, the first included. */
	maxAttempts: number;
	/** Longest wait the retries may add up to, in ms. */
	maxTotalWaitMs: number;
}

export interface RequestSettings {
	subject?: RequestSubject;
	itemIndex?: number;
	/** false for running a flow: a failure after BotDojo accepted it must not be retried. */
	repeatable?: boolean;
	/** n8n's request timeout in ms (0: none). */
	timeout?: number;
	abortSignal?: AbortSignal;
	retry?: RetryPolicy;
	/** The body is left as a stream for the caller (a run reads its own answer). */
	readByCaller?: boolean;
	/** What the user can change about a 429, in the calling node's words. */
	rateLimitAdvice?: string;
}

export interface FullResponse {
	statusCode: number;
	headers: Record<string, string | string[] | undefined>;
	body: unknown;
}

/** Path segments below the project; projectUrl encodes them. */
export type Endpoint = readonly string[];

interface CredentialOfRun {
	fields: ProjectCredentials;
	/** Handed to n8n's helper, which then does not fetch and decrypt it for every request. */
	auth: IAdditionalCredentialOptions;
}

/** Per node execution (its context object): the credential read, and its key once known. */
const credentialOfRun = new WeakMap<object, Promise<CredentialOfRun>>();
const keyOfRun = new WeakMap<object, string>();
/** Contexts made by `withCancelSignal` → the execution's context. */
const executionOf = new WeakMap<object, BotDojoContext>();

/**
 * The context with `getExecutionCancelSignal` answering `signal`: n8n's request helper puts
 * that signal on the request in place of the request's own. It shares the credential read.
 */
export function withCancelSignal<T extends BotDojoContext>(ctx: T, signal: AbortSignal): T {
	const derived = Object.create(ctx, { getExecutionCancelSignal: { value: () => signal } }) as T;
	executionOf.set(derived, executionOf.get(ctx) ?? ctx);
	return derived;
}

/** The credential's fields and n8n's authentication input; throws, before anything is sent,
 *  when the Base URL cannot be used. */
export async function readCredentialOfRun(derived: BotDojoContext): Promise<CredentialOfRun> {
	const ctx = executionOf.get(derived) ?? derived;
	let pending = credentialOfRun.get(ctx);
	if (!pending) {
		pending = ctx.getCredentials(CREDENTIAL_TYPE).then((data) => {
			const text = (name: string) => String(data[name] ?? '').trim();
			const fields = {
				baseUrl: text('baseUrl'),
				accountId: text('accountId'),
				projectId: text('projectId'),
				apiKey: String(data.apiKey ?? ''),
			};
			keyOfRun.set(ctx, fields.apiKey);
			const { id = '', name = '' } = ctx.getNode().credentials?.[CREDENTIAL_TYPE] ?? {};
			return {
				fields,
				auth: { credentialsDecrypted: { id: id ?? '', name, type: CREDENTIAL_TYPE, data } },
			};
		});
		credentialOfRun.set(ctx, pending);
		pending.catch(() => credentialOfRun.delete(ctx));
	}
	const credential = await pending;
	const problem = baseUrlProblem(credential.fields.baseUrl);
	if (problem) {
		throw new NodeOperationError(
			ctx.getNode(),
			`The Base URL of the BotDojo API credential ${problem}`,
			{
				description:
					'Open the credential and enter the address of the BotDojo API with its scheme, e.g. https://api.botdojo.com/api/v1. No request was sent.',
			},
		);
	}
	return credential;
}

export async function readCredentials(ctx: BotDojoContext): Promise<ProjectCredentials> {
	return (await readCredentialOfRun(ctx)).fields;
}

/** The execution's key once a request read it, to redact quoted answers; '' before. */
export function knownApiKey(ctx: BotDojoContext): string {
	return keyOfRun.get(executionOf.get(ctx) ?? ctx) ?? '';
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
	credentials: Omit<ProjectCredentials, 'apiKey'>,
	segments: Endpoint,
): string {
	const path = ['accounts', credentials.accountId, 'projects', credentials.projectId, ...segments];
	return `${credentials.baseUrl.replace(/\/+$/, '')}/${path.map(encodeURIComponent).join('/')}`;
}
