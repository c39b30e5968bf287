/**
 * The item loop of every action node: check all items first, then run them, pair each output
 * with its input, and give Continue On Fail one failed-item shape. Also the node's Operation
 * list and parameters, built from the operations so that each is written once.
 */
import {
	NodeOperationError,
	updateDisplayOptions,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeProperties,
} from 'n8n-workflow';

import { asNodeError, errorItem, nodeFailure } from '../itemErrors';
import { withoutKey } from '../transport/redaction';
import { OutputItems, type Operation, type OperationOutput } from './operation';
import { withItemlessParameters } from './parameters';
import { runPool } from './pool';

type Prepared = { ok: true; value: unknown } | { ok: false; error: unknown };

/**
 * The one entry of every action node: picks the operation (by the node's `operation`
 * parameter when it has several), then runs it over the items (runOperation).
 */
export async function router(
	this: IExecuteFunctions,
	operations: readonly Operation[],
): Promise<INodeExecutionData[][]> {
	if (operations.length === 1) return await runOperation(this, operations[0]);
	const name = this.getNodeParameter('operation', 0) as string;
	const operation = operations.find((candidate) => candidate.option.value === name);
	if (!operation) {
		throw new NodeOperationError(this.getNode(), `The operation "${name}" is not known`, {
			description: `Choose one of: ${operations.map((known) => known.option.value).join(', ')}.`,
		});
	}
	return await runOperation(this, operation);
}

/** Prepares every item first (nothing is sent if one is invalid, unless Continue On Fail), then
 *  executes them (in input order; the operation's concurrency at once, default 1; stops starting
 *  new ones on the execution's Stop), adds pairedItem, and gives each failed item under Continue
 *  On Fail the one shape `{ error, description }`. */
async function runOperation(
	ctx: IExecuteFunctions,
	operation: Operation,
): Promise<INodeExecutionData[][]> {
	const items = ctx.getInputData();
	const continueOnFail = ctx.continueOnFail();
	// What leaves the node (outputs, errors) is where a quoted API key is redacted, once.
	// A thrown failure also reaches a streaming caller, who sees only its description: nodeFailure.
	const failure = (error: unknown, itemIndex: number) =>
		withoutKey(ctx, nodeFailure(ctx, error, itemIndex));

	// prepare only reads parameters (it sends nothing): the same value is read once for all items.
	const reader = withItemlessParameters(ctx);
	const prepared: Prepared[] = [];
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		try {
			prepared.push({ ok: true, value: await operation.prepare.call(reader, itemIndex) });
		} catch (error) {
			if (!continueOnFail) throw failure(error, itemIndex);
			prepared.push({ ok: false, error });
		}
	}

	const cancelSignal = ctx.getExecutionCancelSignal?.();
	const outputs = await runPool(
		items.length,
		Math.max(1, Math.floor(operation.concurrency?.call(ctx) ?? 1)),
		async (itemIndex): Promise<INodeExecutionData[]> => {
			const item = prepared[itemIndex];
			try {
				if (!item.ok) throw item.error;
				const output = await operation.execute.call(ctx, item.value, itemIndex);
				return withoutKey(ctx, toOutputItems(output, itemIndex));
			} catch (error) {
				if (!continueOnFail) throw failure(error, itemIndex);
				return [errorItem(ctx, withoutKey(ctx, asNodeError(ctx, error, itemIndex)), itemIndex)];
			}
		},
		() => cancelSignal?.aborted === true,
	);
	// Items not started after a Stop are left out (their slots are empty).
	return [outputs.filter((output) => output !== undefined).flat()];
}

/**
 * The operation's output as items with pairedItem. Records become items without a copy (an
 * export can hold hundreds of thousands); the operation's own items are completed in place.
 */
function toOutputItems(output: OperationOutput, itemIndex: number): INodeExecutionData[] {
	// One pairedItem object for all, as n8n's constructExecutionMetaData shares its itemData.
	const pairedItem = { item: itemIndex };
	if (output instanceof OutputItems) {
		for (const item of output.items) item.pairedItem ??= pairedItem;
		return output.items;
	}
	const records = Array.isArray(output) ? output : [output];
	return records.map((json) => ({ json, pairedItem }));
}

/** The node's Operation list, built from its operations' own entries. */
export function operationList(
	operations: readonly Operation[],
	displayOptions?: INodeProperties['displayOptions'],
): INodeProperties {
	// A plain name: n8n's lint reads `default: first` as a value, a member expression as none.
	const first = operations[0].option.value;
	return {
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		options: operations.map((operation) => operation.option),
		default: first,
		...(displayOptions ? { displayOptions } : {}),
	};
}

/** Every operation's parameters, each shown only when its operation is chosen. */
export function operationParameters(operations: readonly Operation[]): INodeProperties[] {
	return operations.flatMap((operation) =>
		updateDisplayOptions({ show: { operation: [operation.option.value] } }, operation.description),
	);
}
