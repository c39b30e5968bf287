/* eslint-disable @typescript-eslint/no-explicit-any -- JSON records of a loosely specified API, read freely by tests */
/** Typings for the BotDojo emulator (emulator/index.js). See emulator/README.md. */

export type EndpointName =
	| 'run'
	| 'createSession'
	| 'export'
	| 'loadByFlowSession'
	| 'getTemporarySignedUrl'
	| 'loadByLogicalPath'
	| 'uploadFile'
	| 'getStatus'
	| 'queryMetadata'
	| 'download'
	| 'unknown';

export type FaultType =
	| '429'
	| '500'
	| '503'
	| 'drop'
	| 'malformed'
	| 'no-final'
	| 'stall'
	| 'token-delay'
	| 'big-stream'
	| 'split-utf8'
	| 'huge-line'
	| 'same-cursor'
	| 'empty-page'
	| 'session-error';

/** Fault parameters: retryAfter (429/503), afterEvents (drop/malformed/stall/huge-line), ms (token-delay), tokens (big-stream), bytes (huge-line). */
export interface FaultParams {
	/** 429/503: Retry-After in seconds (any text is sent as is). */
	retryAfter?: number | string;
	/** 429/503: Retry-After as the HTTP date this many seconds from now. */
	retryAfterDate?: number;
	/** session-error: the status (default 500). */
	status?: number;
	afterEvents?: number;
	ms?: number;
	tokens?: number;
	bytes?: number;
	[key: string]: unknown;
}

export interface InjectFaultOptions extends FaultParams {
	/** Only requests to this endpoint consume the fault (default: any endpoint). */
	endpoint?: Exclude<EndpointName, 'unknown'>;
	/** Number of matching requests that get the fault (default 1). */
	times?: number;
}

export interface ArmedFault {
	type: FaultType;
	params: FaultParams;
	endpoint: EndpointName | null;
	times: number;
}

export interface RequestLogEntry {
	endpoint: EndpointName;
	method: string;
	/** Path and query string as received. */
	path: string;
	/** Lower-cased header names; `authorization` as received. */
	headers: Record<string, string | string[] | undefined>;
	/** Parsed JSON body; raw text if it was not JSON; for uploads a summary (see UploadLogBody); undefined when empty. */
	body: any;
	/** HTTP status sent (set when headers go out; 0 when the connection was dropped without an answer). */
	status?: number;
	receivedAt: number;
	respondedAt?: number;
}

export interface UploadLogBody {
	fields: { fileName?: string; logicalPath?: string; meta?: string };
	file?: { fileName?: string; contentType?: string; size: number; sha256: string };
}

export interface ChatMessage {
	id: string;
	date: string;
	role: string;
	content: string;
	steps?: any[];
}

export interface FlowRequestRecord {
	tags: string[];
	id: string;
	flow_id: string;
	flow_session_id: string;
	body: Record<string, any>;
	requestParams: { stream: string };
	runOptions: Record<string, any>;
	override: Record<string, any>;
	/** 'complete' | 'error' | 'running' */
	status: string;
	top_request_id: string;
	userMessage: ChatMessage;
	flow_history_id: string;
	version: string;
	response: Record<string, any>;
	aiMessage: ChatMessage & { steps: any[] };
	eval_job_id: string | null;
	startTime: string;
	endTime: string | null;
	duration: number | null;
	created: string;
	modified: string;
	owner_uid: string;
	modified_uid: string;
	account_id: string;
	project_id: string;
	[key: string]: any;
}

export interface FlowSessionRecord {
	tags: string[];
	id: string;
	flow_id: string;
	sessionState: Record<string, { variables: Record<string, any> }>;
	created: string;
	modified: string;
	owner_uid: string;
	modified_uid: string;
	account_id: string;
	project_id: string;
}

export interface DocumentRecord {
	id: string;
	fileName: string;
	contentType: string;
	sizeBytes: number;
	logicalPath: string;
	version: string;
	created: string;
	tags: string[];
	meta: Record<string, any>;
}

export interface DocumentEntry {
	latest: DocumentRecord;
	/** Bytes of the latest version. */
	data: Buffer;
	versions: Array<{ record: DocumentRecord; data: Buffer }>;
}

export interface ToolCall {
	toolName: string;
	input?: any;
	output?: any;
	error?: string;
}

/** The session as seen by a flow's answer(): the session record plus its earlier runs. */
export interface FlowSessionView extends FlowSessionRecord {
	history: FlowRequestRecord[];
	/** Runs in the session so far, including this one. */
	runNumber: number;
}

export interface FlowDef {
	/** Releases, default ['1']; the last one is the default release. */
	releases?: string[];
	answer?: (body: any, session: FlowSessionView, options: any) => string;
	/** Delay between streamed tokens (stream only). */
	tokenDelayMs?: number;
	/** Delay before answering (stream and non-stream); a function reads it from the body. */
	delayMs?: number | ((body: any) => number);
	tools?: ToolCall[] | ((body: any) => ToolCall[]);
	status?: 'complete' | 'error';
	errorMessage?: string;
	/** Tokens to stream; the answer is their concatenation unless answer() is given. */
	tokens?: (body: any) => string[];
	/** 'legacy' (default): steps `{ toolName, input, output|error, status, runId }`. 'real': steps
	 *  `{ stepId, stepLabel, stepStatus, content, arguments, toolPhase, canvas, subIntermediateSteps }`
	 *  and onFlowRequestStart/onFlowRequestEnd events. */
	shape?: 'legacy' | 'real';
	/** Tokens streamed before the tools, not part of the answer (text_output). */
	preambleTokens?: string[] | ((body: any) => string[]);
	/** Stream each tool's arguments as `onNewToken { toolArguments }` (no `token`). */
	toolArgumentTokens?: boolean;
}

export interface SeedOptions {
	/** ms of the first record's `modified` (default Date.now()). */
	start?: number;
	/** ms between records (default 1000). */
	stepMs?: number;
	/** every Nth record has status 'error'. */
	errorEvery?: number;
	/** every Nth record has status 'running' (never exported). */
	runningEvery?: number;
	/** put every record in this session (default: one new session per record). */
	sessionId?: string;
}

export interface StartOptions {
	/** default 0 (any free port) */
	port?: number;
	/** default '127.0.0.1' */
	host?: string;
	/** a few demo records and one document (default false) */
	seedDemo?: boolean;
	unknownFlowExport?: Behavior['unknownFlowExport'];
	answerWrapper?: Behavior['answerWrapper'];
}

export interface Behavior {
	/** Export of a flow the project does not know: 'empty' (200, no results; default) or 'notFound' (404). */
	unknownFlowExport: 'empty' | 'notFound';
	/** 'plain' (default) or 'success': every positional endpoint answers `{ success: true, results: ... }`. */
	answerWrapper: 'plain' | 'success';
}

export interface Emulator {
	/** 'http://127.0.0.1:PORT' */
	readonly origin: string;
	/** 'http://127.0.0.1:PORT/api/v1' */
	readonly baseUrl: string;
	readonly port: number;
	readonly accountId: 'acc_demo';
	readonly projectId: 'proj_demo';
	readonly keys: { readonly project: string; readonly flow: string; readonly noUpload: string };
	readonly requests: RequestLogEntry[];
	requestsTo(endpoint: EndpointName): RequestLogEntry[];
	injectFault(
		fault: FaultType | string | ({ type: FaultType } & FaultParams),
		options?: InjectFaultOptions,
	): ArmedFault;
	defineFlow(id: string, def: FlowDef): void;
	seedFlowRequests(flowId: string, count: number, options?: SeedOptions): FlowRequestRecord[];
	addRecord(record: Partial<FlowRequestRecord>): FlowRequestRecord;
	/** Modify a finished flow request after the fact; `modified` moves forward (>= 1 ms, or to patch.modified). */
	touchRequest(id: string, patch?: Partial<FlowRequestRecord>): FlowRequestRecord;
	/** The behaviours in force (a copy). */
	readonly behavior: Behavior;
	/** Switch behaviours until reset() (which restores the start options). Returns the behaviours now in force. */
	setBehavior(changes: Partial<Behavior>): Behavior;
	readonly sessions: Map<string, FlowSessionRecord>;
	/** Documents by id. */
	readonly documents: Map<string, DocumentEntry>;
	/** Flow request records by id (runs, seeded and added records). */
	readonly records: Map<string, FlowRequestRecord>;
	readonly flows: Map<string, FlowDef & { id: string; releases: string[]; defaultRelease: string }>;
	/** Clear requests, faults, sessions, records and documents (demo data is re-seeded if seedDemo). Flows added with defineFlow stay. */
	reset(): void;
	/** Close the server, destroying open sockets (stalled streams included). */
	close(): Promise<void>;
}

export function startEmulator(options?: StartOptions): Promise<Emulator>;

export const KEYS: Emulator['keys'];
export const ACCOUNT_ID: 'acc_demo';
export const PROJECT_ID: 'proj_demo';
