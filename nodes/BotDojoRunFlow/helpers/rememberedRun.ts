/**
 * A run in the session remembered for a key. When BotDojo refuses the remembered session
 * ("error loading session", on any error status) it refused it while loading the run request,
 * before the flow ran: only then is the run started again, in a new session.
 */
import { NodeApiError, type IDataObject, type IExecuteFunctions } from 'n8n-workflow';

import { asNodeError } from '../../shared/itemErrors';
import type { RunOutcome } from './flowRun';
import { sessionStoreOf, type SessionUse } from './sessionStore';

export function isSessionRefused(error: unknown): boolean {
	if (!(error instanceof NodeApiError)) return false;
	const status = Number(error.httpCode);
	if (!(status >= 400 && status < 600)) return false;
	return /error loading session/i.test(`${error.message} ${error.description ?? ''}`);
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
