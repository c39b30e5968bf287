/** Reading a number of one item; the Flow ID is read by nodes/shared/params/flowId.ts. */
import { invalidInput, type InputPlace } from '../../shared/validation';

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
