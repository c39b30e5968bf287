/**
 * The failure of one item in a programmatic node: the error n8n shows when the node stops, and
 * the output item that takes the failed item's place with Continue On Fail.
 */
import {
	ExecutionBaseError,
	NodeApiError,
	NodeOperationError,
	type IExecuteFunctions,
	type INodeExecutionData,
} from 'n8n-workflow';

/** Errors already shaped for the user: n8n's own (an expression's too), the transport's
 *  NodeApiError or a validation error. They pass as they are. */
export function isNodeError(
	value: unknown,
): value is NodeApiError | NodeOperationError | ExecutionBaseError {
	return (
		value instanceof ExecutionBaseError ||
		value instanceof NodeApiError ||
		value instanceof NodeOperationError
	);
}

/** A node error passes as it is; anything else is wrapped, naming the item it failed on. */
export function asNodeError(
	ctx: IExecuteFunctions,
	error: unknown,
	itemIndex: number,
): ExecutionBaseError {
	return isNodeError(error)
		? error
		: new NodeOperationError(ctx.getNode(), error as Error, { itemIndex });
}

/** Continue On Fail: the item output in place of a failed one, `{ error, description }`. */
export function errorItem(
	failure: Error & { description?: string | null },
	itemIndex: number,
): INodeExecutionData {
	return {
		json: { error: failure.message, description: failure.description ?? null },
		pairedItem: { item: itemIndex },
	};
}
