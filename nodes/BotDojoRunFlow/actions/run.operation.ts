/**
 * Run Flow's one operation on the shared runner: every item's input is checked first (nothing
 * is sent when one is invalid, unless Continue On Fail), then the flow runs once per item in the
 * session the item asks for.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import type { Operation } from '../../shared/execution';
import { readFlowId } from '../../shared/params/idLocator';
import { runFlowOnce, type RunOutcome } from '../helpers/flowRun';
import { canForward } from '../helpers/forwarder';
import { runWithMemory } from '../helpers/memorySession';
import { runRemembered } from '../helpers/rememberedRun';
import type { RunOptions } from '../helpers/runOptions';
import { inputProperties, NOTHING_SENT, readBody } from './input';
import { optionsProperty } from './options';
import { readConcurrency, readRunOptions } from './readOptions';
import { readSession, sessionProperties, type SessionChoice } from './session';
import { simplifyProperty, toolOutputProperties } from './toolOutput';

interface PreparedRun {
	flowId: string;
	body: IDataObject;
	session: SessionChoice;
	options: RunOptions;
}

export const operation: Operation<PreparedRun> = {
	option: {
		name: 'Run',
		value: 'run',
		action: 'Run a flow',
		description: 'Run the flow once per item and output its answer',
	},
	description: [
		...inputProperties,
		...sessionProperties,
		simplifyProperty,
		...toolOutputProperties,
		optionsProperty,
	],

	concurrency(this: IExecuteFunctions): number {
		return readConcurrency(this);
	},

	prepare(this: IExecuteFunctions, itemIndex: number): PreparedRun {
		return {
			flowId: readFlowId(this, itemIndex, NOTHING_SENT),
			body: readBody(this, itemIndex),
			session: readSession(this, itemIndex),
			options: readRunOptions(this, itemIndex),
		};
	},

	async execute(this: IExecuteFunctions, run: PreparedRun, itemIndex: number) {
		const runIn = async (sessionId: string | undefined): Promise<RunOutcome> =>
			await runFlowOnce(this, {
				...run,
				itemIndex,
				sessionId,
				forward: canForward(this),
				chunkErrors: this.continueOnFail(),
				cancelSignal: this.getExecutionCancelSignal?.(),
			});
		const session = run.session;
		if (session.mode === 'remember') {
			const entry = { flowId: run.flowId, key: session.key };
			return await runRemembered(this, itemIndex, entry, runIn);
		}
		if (session.mode === 'memory') {
			return await runWithMemory(this, itemIndex, run.flowId, runIn);
		}
		const outcome = await runIn(session.mode === 'continue' ? session.id : undefined);
		if (outcome.failure) throw outcome.failure;
		return outcome.json;
	},
};
