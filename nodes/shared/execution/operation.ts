/**
 * One operation of a programmatic node: its parameters, a check of one item's input that sends
 * nothing, and the item's requests. The runner (runner.ts) owns the item loop around it.
 */
import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';

export interface Operation<Prepared = unknown> {
	/** The operation's parameters, built with n8n's updateDisplayOptions. */
	description: INodeProperties[];
	/** Reads and checks one item's parameters. Sends nothing. Throws a NodeOperationError that
	 *  names the parameter, the item and what is valid. */
	prepare(this: IExecuteFunctions, itemIndex: number): Prepared | Promise<Prepared>;
	/** Does the item's requests; returns its output records, or fresh n8n items (all of one kind
	 *  in a list); the runner adds pairedItem where it is missing. */
	execute(
		this: IExecuteFunctions,
		prepared: Prepared,
		itemIndex: number,
	): Promise<IDataObject | IDataObject[] | INodeExecutionData[]>;
}
