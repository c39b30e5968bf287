/**
 * Shared by the fault tables of test/faults/ (one file per kind of docs/troubleshooting.md's "What happens
 * when…" table): what the user reads, and what BotDojo did.
 */
import type { EndpointName } from '../../emulator/types';
import type { EmulatorFixture } from './emulator';
import type { RunResult } from './engine';

/** What the user reads in n8n: the error's message, then its description. */
export function whatUserSees({ error }: Pick<RunResult, 'error'>): string {
	return `${error?.message ?? ''}\n${error?.description ?? ''}`;
}

/** How many runs of a flow BotDojo started (the emulator's flow request records). */
export function flowRuns(env: EmulatorFixture): number {
	return env.emu.records.size;
}

/** The statuses BotDojo answered on one endpoint, in order. */
export function statusesOf(
	env: EmulatorFixture,
	endpoint: EndpointName,
): Array<number | undefined> {
	return env.emu.requestsTo(endpoint).map((request) => request.status);
}

/** The phrase every error of a run that may have happened carries. */
export const MAY_HAVE_RUN = /Not safe to retry blindly/;
