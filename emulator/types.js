'use strict';
/**
 * Shared JSDoc types of the emulator (no code). `tsc -p emulator/tsconfig.json` checks every
 * file against them.
 *
 * @typedef {{
 *   endpoint: string, method: string, path: string,
 *   headers: Record<string, string | string[] | undefined>,
 *   body: any, status: number | undefined, receivedAt: number, respondedAt: number | undefined,
 * }} RequestLogEntry
 * One received request: parsed JSON body (raw text if not JSON; an upload summary for uploads).
 *
 * @typedef {{ unknownFlowExport: 'empty' | 'notFound', answerWrapper: 'plain' | 'success' }} Behavior
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
