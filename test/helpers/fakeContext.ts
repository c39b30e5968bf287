/**
 * A fake execution context for unit tests of the transport (no server, no engine): its request
 * helpers record each call and answer `answers` in turn; n8n's egress filter answers every name
 * with one public address.
 */
import type { IExecuteFunctions, IHttpRequestOptions } from 'n8n-workflow';

export const CREDENTIAL = {
	baseUrl: 'https://api.botdojo.test/api/v1/',
	accountId: 'acc 1',
	projectId: 'proj_1',
	apiKey: 'key-1234567890', // 12 characters at least: the credential refuses a shorter key
};

/** What n8n's helper was called with: the credential type, the request, the credential given. */
export interface Call {
	type?: string;
	options: IHttpRequestOptions;
	auth?: unknown;
	/** The execution signal of the context the helper was called on (the one n8n applies). */
	contextSignal?: AbortSignal;
}

/** An execution context whose request helpers record each call and answer `answers` in turn. */
export function fakeContext(...answers: unknown[]) {
	const calls: Call[] = [];
	const cancel = new AbortController();
	const answer = () => ({ statusCode: 200, headers: {}, body: answers.shift() });
	const ctx = {
		getNode: () => ({
			id: 'n1',
			name: 'BotDojo',
			type: 'n8n-nodes-botdojo.botDojoRunFlow',
			typeVersion: 1,
			position: [0, 0],
			parameters: {},
			credentials: { botDojoApi: { id: 'cred_1', name: 'BotDojo account' } },
		}),
		getCredentials: async () => ({ ...CREDENTIAL }),
		getExecutionCancelSignal: () => cancel.signal,
		helpers: {
			async httpRequestWithAuthentication(
				this: IExecuteFunctions,
				type: string,
				options: IHttpRequestOptions,
				auth: unknown,
			) {
				calls.push({ type, options, auth, contextSignal: this.getExecutionCancelSignal?.() });
				return answer();
			},
			async httpRequest(options: IHttpRequestOptions) {
				calls.push({ options });
				return answer();
			},
			// n8n's egress filter: its lookup answers every name with one public address.
			getSecureEgressFilter: () => ({
				createSecureLookup:
					() => (_host: string, _options: unknown, done: (...answer: unknown[]) => void) =>
						done(null, [{ address: '93.184.215.14', family: 4 }]),
			}),
		},
	} as unknown as IExecuteFunctions;
	return { ctx, calls, cancel, cancelSignal: cancel.signal };
}
