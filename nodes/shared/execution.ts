/**
 * The execution kit of every action node: the shape of one operation, the node's Operation list
 * built from its operations, and the item loop around them (router): check all items first, then
 * run them a few at a time, pair each output with its input, give Continue On Fail one
 * failed-item shape, and start no new item after the execution's Stop.
 */
import {
	NodeOperationError,
	updateDisplayOptions,
	type IDataObject,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeProperties,
	type INodePropertyOptions,
} from 'n8n-workflow';

import { asNodeError, errorItem, nodeFailure } from './itemErrors';
import { withoutKey } from './transport/redaction';

/** Output items built by the operation itself (with binary data); pairedItem is added if missing. */
export class OutputItems {
	constructor(readonly items: INodeExecutionData[]) {}
}

/** An item's output: one record, records (each becomes an item), or whole items. */
type OperationOutput = IDataObject | IDataObject[] | OutputItems;

/** One operation; every `<op>.operation.ts` exports one as `operation`. */
export interface Operation<Prepared = unknown> {
	/** The entry in the node's Operation list; its `value` names the operation. A node with one
	 *  operation shows no list. */
	option: INodePropertyOptions & { value: string; action: string };
	/** The operation's parameters (shown for it alone where the node has a list). */
	description: INodeProperties[];
	/** Items executed at once, one value for the node (read from the first item); default 1. */
	concurrency?(this: IExecuteFunctions): number;
	/** Reads and checks one item's parameters. Sends nothing. Throws a NodeOperationError that
	 *  names the parameter, the item and what is valid. */
	prepare(this: IExecuteFunctions, itemIndex: number): Prepared | Promise<Prepared>;
	/** Does the item's requests. */
	execute(this: IExecuteFunctions, prepared: Prepared, itemIndex: number): Promise<OperationOutput>;
}

/** An operation, with the type of what its prepare returns (and its execute takes) inferred. */
export const defineOperation = <Prepared>(operation: Operation<Prepared>) => operation;

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
		displayOptions,
	};
}

/** Every operation's parameters, each shown only when its operation is chosen. */
export function operationParameters(operations: readonly Operation[]) {
	return operations.flatMap((operation) =>
		updateDisplayOptions({ show: { operation: [operation.option.value] } }, operation.description),
	);
}

/**
 * A node's `execute`, the one entry of every action node (the router): picks the operation (by
 * the node's `operation` parameter when it has several), then runs it over the items.
 */
export function executeOperations(operations: readonly Operation[]) {
	return async function (this: IExecuteFunctions) {
		const name =
			operations.length === 1 ? operations[0].option.value : this.getNodeParameter('operation', 0);
		const operation = operations.find((o) => o.option.value === name);
		if (!operation) {
			throw new NodeOperationError(this.getNode(), `The operation "${name}" is not known`, {
				description: `Choose one of: ${operations.map((known) => known.option.value).join(', ')}.`,
			});
		}
		return [await runItems(this, operation)];
	};
}

/** Prepares every item first (nothing is sent if one is invalid, unless Continue On Fail), then
 *  executes them (in input order; the operation's concurrency at once, default 1; stops starting
 *  new ones on the execution's Stop), adds pairedItem, and gives each failed item under Continue
 *  On Fail the one shape `{ error, description }`. */
async function runItems(ctx: IExecuteFunctions, operation: Operation) {
	const count = ctx.getInputData().length;
	const continueOnFail = ctx.continueOnFail();
	// What leaves the node (outputs, errors) is where a quoted API key is redacted, once.
	// A thrown failure also reaches a streaming caller, who sees only its description: nodeFailure.
	const failure = (error: unknown, itemIndex: number) =>
		withoutKey(ctx, nodeFailure(ctx, error, itemIndex));

	// Each item's run: the execution of what it prepared, or the failure of its check (under
	// Continue On Fail).
	const runs: Array<() => Promise<OperationOutput>> = [];
	for (let itemIndex = 0; itemIndex < count; itemIndex++) {
		try {
			const prepared = await operation.prepare.call(ctx, itemIndex);
			runs.push(() => operation.execute.call(ctx, prepared, itemIndex));
		} catch (error) {
			if (!continueOnFail) throw failure(error, itemIndex);
			runs.push(() => Promise.reject(error));
		}
	}

	const cancelSignal = ctx.getExecutionCancelSignal();
	const outputs = await runPool(
		count,
		// runPool runs at least one at a time.
		Math.floor(operation.concurrency?.call(ctx) ?? 1),
		async (itemIndex): Promise<INodeExecutionData[]> => {
			try {
				const output = await runs[itemIndex]();
				return withoutKey(ctx, toOutputItems(output, itemIndex));
			} catch (error) {
				if (!continueOnFail) throw failure(error, itemIndex);
				return [errorItem(ctx, withoutKey(ctx, asNodeError(ctx, error, itemIndex)), itemIndex)];
			}
		},
		() => cancelSignal?.aborted === true,
	);
	// Items not started after a Stop are left out (their slots are empty).
	return outputs.filter((output) => output !== undefined).flat();
}

/**
 * The operation's output as items with pairedItem. Records become items without a copy (an
 * export can hold hundreds of thousands); the operation's own items are completed in place.
 */
function toOutputItems(output: OperationOutput, itemIndex: number) {
	// One pairedItem object for all, as n8n's constructExecutionMetaData shares its itemData.
	const pairedItem = { item: itemIndex };
	if (output instanceof OutputItems) {
		for (const item of output.items) item.pairedItem ??= pairedItem;
		return output.items;
	}
	return (Array.isArray(output) ? output : [output]).map((json) => ({ json, pairedItem }));
}

/**
 * At most `concurrency` tasks at once, results in input order. After a failure no new task
 * starts, the running ones finish, then the first failure is thrown.
 */
export async function runPool<T>(
	count: number,
	concurrency: number,
	task: (index: number) => Promise<T>,
	shouldStop: () => boolean,
): Promise<T[]> {
	const results = new Array<T>(count);
	let next = 0;
	let failure: { error: unknown } | undefined;
	const worker = async () => {
		while (next < count && !failure && !shouldStop()) {
			const index = next++;
			try {
				results[index] = await task(index);
			} catch (error) {
				failure ??= { error };
			}
		}
	};
	await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, count)) }, worker));
	if (failure) throw failure.error;
	return results;
}
