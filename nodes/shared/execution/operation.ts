/**
 * One operation of an action node: its entry in the node's Operation list, its parameters, a
 * check of one item's input that sends nothing, and the item's requests. Every operation file
 * exports one `operation` of this shape; the runner (runner.ts) owns the item loop around it.
 */
import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
	INodePropertyOptions,
} from 'n8n-workflow';

/** Output items built by the operation itself (with binary data); pairedItem is added if missing. */
export class OutputItems {
	constructor(readonly items: INodeExecutionData[]) {}
}

/** An item's output: one record, records (each becomes an item), or whole items. */
export type OperationOutput = IDataObject | IDataObject[] | OutputItems;

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
