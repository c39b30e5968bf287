/**
 * The failure of one item in a programmatic node: the error n8n shows when the node stops, and
 * the output item that takes the failed item's place with Continue On Fail.
 */
import { ExecutionBaseError, NodeOperationError, type IExecuteFunctions } from 'n8n-workflow';

/**
 * The error that fails the node. A streaming caller (a Chat Trigger or Webhook in streaming mode)
 * gets only its description from n8n (n8n-core's handleNodeExecutionError): there the description
 * starts with the headline, so the person in the chat reads what failed as well as why.
 */
export function nodeFailure(ctx: IExecuteFunctions, error: unknown, itemIndex: number) {
	const failure = asNodeError(ctx, error, itemIndex);
	if (!ctx.isStreaming()) return failure;
	const { message, description } = failure;
	if (description && !description.startsWith(message))
		failure.description = `${message}${/[.!?]$/.test(message) ? '' : '.'} ${description}`;
	return failure;
}

/** A node error (n8n's own, an expression's, the transport's NodeApiError, a validation
 *  NodeOperationError: all ExecutionBaseError) passes as it is; anything else is wrapped,
 *  naming the item it failed on. */
export function asNodeError(ctx: IExecuteFunctions, error: unknown, itemIndex: number) {
	return error instanceof ExecutionBaseError
		? error
		: new NodeOperationError(ctx.getNode(), error as Error, { itemIndex });
}

/**
 * Continue On Fail: the item output in place of a failed one, `{ error, description }`. On Error ›
 * Continue (using error output): `{ error, details }`, as n8n routes to the error output only items
 * whose fields are among `error`, `message` and `details` (an item's `error` object would do too,
 * but n8n then keeps only its message).
 */
export function errorItem(ctx: IExecuteFunctions, failure: ExecutionBaseError, itemIndex: number) {
	const description = failure.description ?? null;
	const json =
		ctx.getNode().onError === 'continueErrorOutput'
			? { error: failure.message, details: description }
			: { error: failure.message, description };
	return { json, pairedItem: { item: itemIndex } };
}
