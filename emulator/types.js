'use strict';
/**
 * The emulator's types, as JSDoc (no code): the public types that `index.js` re-exports for
 * TypeScript tests, and the context every handler gets. `tsc -p emulator/tsconfig.json`
 * checks the code against them; the root tsconfig reads them from the .js files directly.
 *
 * @typedef {(typeof import('./routes').ENDPOINTS)[number] | 'unknown'} EndpointName
 * @typedef {| '400' | '413' | '414' | '429' | '431' | '500' | '503' | 'echo-key' | 'echo-key-answer' | 'echo-key-stream' | 'link-elsewhere' | 'redirect' | 'drop' | 'malformed' | 'no-final' | 'stall' | 'token-delay' | 'big-stream' | 'split-utf8' | 'huge-line' | 'whole-answer' | 'whole-answer-stall' | 'whole-answer-drop' | 'same-cursor' | 'empty-page' | 'session-error' | 'wrong-shape'} FaultType
 * @typedef {{ retryAfter?: number | string; retryAfterDate?: number; status?: number; afterEvents?: number; ms?: number; tokens?: number; bytes?: number; form?: 'raw' | 'escaped' | 'split' | 'url' | 'base64' | 'unicode' | 'upper' | 'wrapped'; pad?: number; line?: 'malformed' | 'bad-token'; to?: 'host' | 'file' | 'self'; url?: string; [key: string]: unknown; }} FaultParams
 * @typedef {FaultParams & { endpoint?: Exclude<EndpointName, 'unknown'>; times?: number; skip?: number; }} InjectFaultOptions
 * @typedef {{ type: FaultType; params: FaultParams; endpoint: EndpointName | null; times: number; }} ArmedFault
 * @typedef {{ endpoint: EndpointName; method: string; path: string; headers: Record<string, string | string[] | undefined>; body: any; status?: number; receivedAt: number; respondedAt?: number; }} RequestLogEntry
 * @typedef {{ fields: { fileName?: string; logicalPath?: string; meta?: string }; file?: { fileName?: string; contentType?: string; size: number; sha256: string }; }} UploadLogBody
 * @typedef {{ id: string; date: string; role: string; content: string; steps?: any[]; }} ChatMessage
 * @typedef {{ tags: string[]; id: string; flow_id: string; flow_session_id: string; body: Record<string, any>; requestParams: { stream: string }; runOptions: Record<string, any>; override: Record<string, any>; status: string; top_request_id: string; userMessage: ChatMessage; flow_history_id: string; version: string; response: Record<string, any>; aiMessage: ChatMessage & { steps: any[] }; eval_job_id: string | null; startTime: string; endTime: string | null; duration: number | null; created: string; modified: string; owner_uid: string; modified_uid: string; account_id: string; project_id: string; [key: string]: any; }} FlowRequestRecord
 * @typedef {{ tags: string[]; id: string; flow_id: string; sessionState: Record<string, { variables: Record<string, any> }>; created: string; modified: string; owner_uid: string; modified_uid: string; account_id: string; project_id: string; }} FlowSessionRecord
 * @typedef {{ id: string; fileName: string; contentType: string; sizeBytes: number; logicalPath: string; version: string; created: string; tags: string[]; meta: Record<string, any>; }} DocumentRecord
 * @typedef {{ latest: DocumentRecord; data: Buffer; versions: Array<{ record: DocumentRecord; data: Buffer }>; }} DocumentEntry
 * @typedef {{ toolName: string; input?: any; output?: any; error?: string; viaCanvas?: boolean; }} ToolCall
 * @typedef {FlowSessionRecord & { history: FlowRequestRecord[]; runNumber: number; }} FlowSessionView
 * @typedef {{ releases?: string[]; answer?: (body: any, session: FlowSessionView, options: any) => string; tokenDelayMs?: number; delayMs?: number | ((body: any) => number); tools?: ToolCall[] | ((body: any) => ToolCall[]); status?: 'complete' | 'error' | 'pending' | 'running'; errorMessage?: string; tokens?: (body: any) => string[]; shape?: 'legacy' | 'real' | 'sdk'; suggestedQuestions?: string[]; preambleTokens?: string[] | ((body: any) => string[]); toolArgumentTokens?: boolean; }} FlowDef
 * @typedef {{ start?: number; stepMs?: number; errorEvery?: number; runningEvery?: number; sessionId?: string; }} SeedOptions
 * @typedef {{ unknownFlowExport: 'empty' | 'notFound'; answerWrapper: 'plain' | 'success'; answerShape: 'spec' | 'mismatched'; }} Behavior
 *
 * @typedef {{ port?: number; host?: string; seedDemo?: boolean; unknownFlowExport?: Behavior['unknownFlowExport']; answerWrapper?: Behavior['answerWrapper']; answerShape?: Behavior['answerShape']; }} StartOptions
 * `port` 0 (default) = any free port; `host` default 127.0.0.1; `seedDemo`: a few demo records and one document.
 *
 * @typedef {{ t: NodeJS.Timeout, resolve: () => void }} Timer
 *
 * @typedef {{
 *   accountId: string,
 *   projectId: string,
 *   ownerUid: string,
 *   keys: Readonly<{ project: string, flow: string, noUpload: string }>,
 *   secret: Buffer,
 *   requests: RequestLogEntry[],
 *   faults: import('./faults').ArmedFault[],
 *   timers: Set<Timer>,
 *   flows: Map<string, import('./flows').Flow>,
 *   origin: string,
 *   behavior: Behavior,
 *   store: import('./store').Store,
 *   documents: import('./documents').Documents,
 *   indexes: import('./indexes').Indexes,
 * }} Context
 * The state of one emulator, handed to every handler.
 */

module.exports = {};
