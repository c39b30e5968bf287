import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { invalidInput, requireText, type InputPlace } from '../../shared/validation';

export const flowIdField: INodeProperties = {
	displayName: 'Flow ID',
	name: 'flowId',
	type: 'string',
	default: '',
	required: true,
	placeholder: 'e.g. flow_echo',
	description:
		"ID of the flow whose requests to read. It is shown in the flow's address in BotDojo and on its API tab.",
};

export function placeOf(ctx: IExecuteFunctions, itemIndex: number): InputPlace {
	return { node: ctx.getNode(), itemIndex };
}

export function readFlowId(ctx: IExecuteFunctions, itemIndex: number): string {
	return requireText(
		placeOf(ctx, itemIndex),
		'Flow ID',
		ctx.getNodeParameter('flowId', itemIndex, ''),
		"Enter the ID of a flow of this project (shown in the flow's address and on its API tab).",
	);
}

/** A whole number in [min, max], given as a number or as numeric text (from an expression). */
export function readWholeNumber(
	place: InputPlace,
	parameter: string,
	value: unknown,
	min: number,
	max: number,
): number {
	const valid = `Enter a whole number from ${min} to ${max}.`;
	const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
	if (typeof number !== 'number' || !Number.isInteger(number)) {
		throw invalidInput(place, parameter, `${JSON.stringify(value)} is not a whole number`, valid);
	}
	if (number < min || number > max) {
		throw invalidInput(place, parameter, `${number} is out of range`, valid);
	}
	return number;
}
