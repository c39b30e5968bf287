/**
 * Runs the flow once per item: all input is checked first (nothing is sent when any item is
 * invalid, unless Continue On Fail), then the items run through a small pool.
 */
import {
	NodeApiError,
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
import { readSession, RememberedSessions, type SessionChoice } from './session';

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
	sessions: () => RememberedSessions;
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

	let sessions: RememberedSessions | undefined;
	const context: RunContext = {
		ctx: this,
		forward: canForward(this),
		continueOnFail,
		cancelSignal: this.getExecutionCancelSignal?.(),
		sessions: () => (sessions ??= new RememberedSessions(this.getWorkflowStaticData('node'))),
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
	if (session.mode !== 'remember') {
		const sessionId = session.mode === 'continue' ? session.id : undefined;
		const outcome = await runOnce(context, itemIndex, run, sessionId);
		if (outcome.failure) throw outcome.failure;
		return outcome.json;
	}
	const sessions = context.sessions();
	let failure: Error | undefined;
	const json = await sessions.withSession(run.flowId, session.key, async (known) => {
		let outcome: RunOutcome;
		try {
			outcome = await runOnce(context, itemIndex, run, known);
		} catch (error) {
			// BotDojo refused the remembered session (400: nothing ran): start a new one.
			if (!known || !isSessionRefused(error)) throw asNodeError(context.ctx, error, itemIndex);
			sessions.forget(run.flowId, session.key);
			outcome = await runOnce(context, itemIndex, run, undefined);
		}
		failure = outcome.failure;
		return { result: outcome.json, sessionId: outcome.sessionId };
	});
	if (failure) throw failure;
	return json;
}

function isSessionRefused(error: unknown): boolean {
	return (
		error instanceof NodeApiError && error.httpCode === '400' && /session/i.test(error.message)
	);
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
