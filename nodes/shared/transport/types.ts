/**
 * The transport's shared types, in one file that imports nothing of the transport, so that
 * request.ts (sending) and errors.ts (mapping failures) can both use them without a cycle.
 */
import type {
	IExecuteFunctions,
	IExecuteSingleFunctions,
	ILoadOptionsFunctions,
	IPollFunctions,
} from 'n8n-workflow';

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
