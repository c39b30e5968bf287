/**
 * A run in the session remembered for a key. When BotDojo refuses the remembered session
 * ("error loading session", on any error status) it refused it while loading the run request,
 * before the flow ran: only then is the run started again, in a new session.
 *
 * The map is only right where one process writes it and sees what it saved: a regular-mode n8n.
 * A queue-mode worker sees neither (a webhook or chat execution starts from the static data the
 * main stored with it, and every worker keeps its own map in memory and saves over the others'),
 * so a worker would continue the older session it used itself. It refuses instead, naming Keep
 * in Chat Memory.
 */
import {
	NodeApiError,
	NodeOperationError,
	type IDataObject,
	type IExecuteFunctions,
} from 'n8n-workflow';

import { asNodeError } from '../../shared/itemErrors';
import { serviceMessage } from '../../shared/transport/errors';
import type { RunOutcome } from './flowRun';
import { sessionStoreOf, type SessionUse } from './sessionStore';

/**
 * Whether this execution runs on a queue-mode worker. n8n-core's execution contexts carry n8n's
 * InstanceSettings, whose instanceType is 'worker' in `n8n worker` (not part of the typed
 * interface; a context without it is taken to be a regular n8n, as every n8n before 1.7x was).
 */
export function runsOnQueueWorker(ctx: IExecuteFunctions): boolean {
	const { instanceSettings } = ctx as unknown as { instanceSettings?: { instanceType?: unknown } };
	return instanceSettings?.instanceType === 'worker';
}

/** Refuses Remember by Key on a queue-mode worker, before any request. */
export function assertRememberedMapVisible(ctx: IExecuteFunctions, itemIndex: number): void {
	if (!runsOnQueueWorker(ctx)) return;
	throw new NodeOperationError(
		ctx.getNode(),
		'Session: Remember by Key cannot be used on a queue-mode worker. Choose Keep in Chat Memory',
		{
			itemIndex,
			description:
				"This execution ran on an n8n worker (queue mode). Workers do not see the conversations that other workers saved, so a conversation could start over or continue an older BotDojo session. Choose Session: Keep in Chat Memory and connect a Redis Chat Memory or Postgres Chat Memory, which every worker reaches. Nothing was sent to BotDojo.",
		},
	);
}

/**
 * Whether BotDojo refused the session: its own words (not the node's, nor what they quote, such
 * as the user's message in a flow's error after it ran) begin with "Error loading session".
 */
export function isSessionRefused(error: unknown): boolean {
	if (!(error instanceof NodeApiError)) return false;
	const status = Number(error.httpCode);
	if (!(status >= 400 && status < 600)) return false;
	const answer = error.errorResponse as { body?: unknown } | undefined;
	return /^error loading session\b/i.test(serviceMessage(answer?.body) ?? '');
}

/**
 * Runs `runIn` in the session remembered for `key` (or a new one) and says in the output's
 * `session` whether it continued, started or replaced one.
 */
export async function runRemembered(
	ctx: IExecuteFunctions,
	itemIndex: number,
	entry: { flowId: string; key: string },
	runIn: (sessionId: string | undefined) => Promise<RunOutcome>,
): Promise<IDataObject> {
	const store = sessionStoreOf(ctx.getWorkflow().id ?? '', ctx.getNode().name);
	const staticData = ctx.getWorkflowStaticData('node');
	// A manual execution's static data may not be what n8n saved last.
	store.attach(staticData, ctx.getMode() !== 'manual');
	let failure: Error | undefined;
	const json = await store.withSession(entry, staticData, async (known) => {
		let use: SessionUse = known ? 'continued' : 'new';
		let outcome: RunOutcome;
		try {
			outcome = await runIn(known);
		} catch (error) {
			if (!known || !isSessionRefused(error)) throw asNodeError(ctx, error, itemIndex);
			store.forget(entry, staticData);
			use = 'replaced';
			outcome = await runIn(undefined);
		}
		failure = outcome.failure;
		return { result: { ...outcome.json, session: use }, sessionId: outcome.sessionId };
	});
	if (failure) throw failure;
	return json;
}
