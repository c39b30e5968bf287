/**
 * Runs the flow once per item: all input is checked first (nothing is sent when any item is
 * invalid, unless Continue On Fail), then the items run through a small pool.
 */
import {
	type NodeApiError,
	type IDataObject,
	type IExecuteFunctions,
	type INodeExecutionData,
} from 'n8n-workflow';

import { readFlowId } from '../../shared/flowId';
import { asNodeError, errorItem } from '../../shared/itemErrors';
import { canForward } from '../helpers/forwarder';
import { runFlowOnce, type RunOutcome } from '../helpers/flowRun';
import { runPool } from '../helpers/pool';
import { NOTHING_SENT, readBody } from './input';
import { readConcurrency, readRunOptions, type RunOptions } from './readOptions';
import { runWithMemory } from './memorySession';
import { runRemembered } from './rememberedRun';
import { readSession, type SessionChoice } from './session';

interface PreparedRun {
	flowId: string;
	body: IDataObject;
	session: SessionChoice;
	options: RunOptions;
}

interface RunContext {
	ctx: IExecuteFunctions;
	forward: boolean;
	continueOnFail: boolean;
	cancelSignal?: AbortSignal;
}

export async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const continueOnFail = this.continueOnFail();
	const prepared = items.map((_item, itemIndex): PreparedRun | Error => {
		try {
			return {
				flowId: readFlowId(this, itemIndex, NOTHING_SENT),
				body: readBody(this, itemIndex),
				session: readSession(this, itemIndex),
				options: readRunOptions(this, itemIndex),
			};
		} catch (error) {
			if (!continueOnFail) throw asNodeError(this, error, itemIndex);
			return error as Error;
		}
	});

	const context: RunContext = {
		ctx: this,
		forward: canForward(this),
		continueOnFail,
		cancelSignal: this.getExecutionCancelSignal?.(),
	};

	const output = await runPool(
		items.length,
		readConcurrency(this),
		async (itemIndex): Promise<INodeExecutionData> => {
			const run = prepared[itemIndex];
			try {
				if (run instanceof Error) throw run;
				return { json: await runItem(context, itemIndex, run), pairedItem: { item: itemIndex } };
			} catch (error) {
				if (!continueOnFail) throw asNodeError(this, error, itemIndex);
				return errorItem(error as NodeApiError, itemIndex);
			}
		},
		() => context.cancelSignal?.aborted === true,
	);
	return [output.filter((item) => item !== undefined)];
}

async function runItem(context: RunContext, itemIndex: number, run: PreparedRun) {
	const session = run.session;
	const runIn = async (sessionId: string | undefined) =>
		await runOnce(context, itemIndex, run, sessionId);
	if (session.mode === 'remember') {
		const entry = { flowId: run.flowId, key: session.key };
		return await runRemembered(context.ctx, itemIndex, entry, runIn);
	}
	if (session.mode === 'memory') {
		return await runWithMemory(context.ctx, itemIndex, run.flowId, runIn);
	}
	const outcome = await runIn(session.mode === 'continue' ? session.id : undefined);
	if (outcome.failure) throw outcome.failure;
	return outcome.json;
}

function runOnce(
	context: RunContext,
	itemIndex: number,
	run: PreparedRun,
	sessionId: string | undefined,
): Promise<RunOutcome> {
	return runFlowOnce(context.ctx, {
		...run,
		itemIndex,
		sessionId,
		forward: context.forward,
		chunkErrors: context.continueOnFail,
		cancelSignal: context.cancelSignal,
	});
}
