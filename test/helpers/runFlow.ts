/** Shared bits of the Run Flow engine tests. */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { runNode, startRun, type RunSettings } from './engine';
import type { EmulatorFixture } from './emulator';

export type RunFlowSettings = Omit<RunSettings, 'node' | 'credentials'> & {
	parameters: INodeParameters;
	continueOnFail?: boolean;
	credentialId?: string;
	/** Run Flow's node version (default 1, as workflows saved before 1.1 hold). */
	typeVersion?: number;
};

function settingsOf(env: EmulatorFixture, settings: RunFlowSettings): RunSettings {
	const { parameters, continueOnFail, credentialId, typeVersion, ...rest } = settings;
	return {
		...rest,
		node: { type: 'botDojoRunFlow', parameters, continueOnFail, credentialId, typeVersion },
		credentials: env.credentials,
	};
}

/** Runs "Items → BotDojo Run Flow" once in n8n's engine against the emulator. */
export async function runFlow(env: EmulatorFixture, settings: RunFlowSettings) {
	return await runNode(settingsOf(env, settings));
}

export function startFlow(env: EmulatorFixture, settings: RunFlowSettings) {
	return startRun(settingsOf(env, settings));
}

/** Bodies of the run requests the emulator received, in order. */
export function runBodies(
	env: EmulatorFixture,
): Array<{ body: IDataObject; options?: IDataObject }> {
	return env.emu.requestsTo('run').map((request: { body: unknown }) => request.body as never);
}

/** A message run of `flowId`; `options` and other parameters are merged in. */
export function message(
	flowId: string,
	text: string,
	extra: INodeParameters = {},
): INodeParameters {
	return { flowId, inputMode: 'message', message: text, ...extra };
}
