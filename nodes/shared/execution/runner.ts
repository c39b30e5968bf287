/**
 * The item loop of every programmatic node: check all items first, then run them, pair each
 * output with its input, and give Continue On Fail one failed-item shape.
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { asNodeError, errorItem } from '../itemErrors';
import type { Operation } from './operation';
import { runPool } from './pool';

export interface RunnerOptions {
	/** Items executed at once; default 1. */
	concurrency?: number;
}

type Prepared = { ok: true; value: unknown } | { ok: false; error: unknown };

/** Prepares every item first (nothing is sent if one is invalid, unless Continue On Fail), then
 *  executes them (in input order; `concurrency` at once, default 1; stops starting new ones on
 *  the execution's Stop), adds pairedItem, and gives each failed item under Continue On Fail the
 *  one shape `{ error, description }`. */
export async function runOperation(
	this: IExecuteFunctions,
	operation: Operation,
	options: RunnerOptions = {},
): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const continueOnFail = this.continueOnFail();

	const prepared: Prepared[] = [];
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		try {
			prepared.push({ ok: true, value: await operation.prepare.call(this, itemIndex) });
		} catch (error) {
			if (!continueOnFail) throw asNodeError(this, error, itemIndex);
			prepared.push({ ok: false, error });
		}
	}

	const cancelSignal = this.getExecutionCancelSignal?.();
	const outputs = await runPool(
		items.length,
		Math.max(1, Math.floor(options.concurrency ?? 1)),
		async (itemIndex): Promise<INodeExecutionData[]> => {
			const item = prepared[itemIndex];
			try {
				if (!item.ok) throw item.error;
				const records = await operation.execute.call(this, item.value, itemIndex);
				return toOutputItems(records, itemIndex);
			} catch (error) {
				if (!continueOnFail) throw asNodeError(this, error, itemIndex);
				return [errorItem(asNodeError(this, error, itemIndex), itemIndex)];
			}
		},
		() => cancelSignal?.aborted === true,
	);
	// Items not started after a Stop are left out (their slots are empty).
	return [outputs.filter((output) => output !== undefined).flat()];
}

/** Picks the operation by the node's `operation` parameter, then runOperation. */
export async function routeOperation(
	this: IExecuteFunctions,
	operations: Record<string, Operation>,
	options?: RunnerOptions,
): Promise<INodeExecutionData[][]> {
	const name = this.getNodeParameter('operation', 0) as string;
	const operation = Object.prototype.hasOwnProperty.call(operations, name)
		? operations[name]
		: undefined;
	if (!operation) {
		throw new NodeOperationError(this.getNode(), `The operation "${name}" is not known`, {
			description: `Choose one of: ${Object.keys(operations).join(', ')}.`,
		});
	}
	return await runOperation.call(this, operation, options);
}

const ITEM_KEYS = new Set(['json', 'binary', 'pairedItem', 'error', 'index']);

/** An element is an n8n item when it has a `json` object and only the keys of an item. */
function isExecutionItem(value: unknown): value is INodeExecutionData {
	if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
	const record = value as Record<string, unknown>;
	return (
		record.json !== null &&
		typeof record.json === 'object' &&
		!Array.isArray(record.json) &&
		Object.keys(record).every((key) => ITEM_KEYS.has(key))
	);
}

/**
 * The operation's output as items with pairedItem. A list is all records or all items (the first
 * element says which), so an export of 100k records is not inspected record by record; items are
 * the operation's own fresh objects and are completed in place, not copied.
 */
function toOutputItems(
	records: IDataObject | IDataObject[] | INodeExecutionData[],
	itemIndex: number,
): INodeExecutionData[] {
	const list: unknown[] = Array.isArray(records) ? records : [records];
	if (list.length === 0) return [];
	// One pairedItem object for all, as n8n's constructExecutionMetaData shares its itemData.
	const pairedItem = { item: itemIndex };
	if (!isExecutionItem(list[0])) {
		return list.map((record) => ({ json: record as IDataObject, pairedItem }));
	}
	const items = list as INodeExecutionData[];
	for (const item of items) item.pairedItem ??= pairedItem;
	return items;
}
