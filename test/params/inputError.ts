/** What a user checks in an input error: the parameter it names, and the item it is about. */
import type { ExecutionError } from 'n8n-workflow';

export function expectInputError(
	error: ExecutionError | undefined,
	parameter: string,
	itemIndex: number,
	problem: RegExp,
): void {
	expect(error?.message.startsWith(`${parameter}: `)).toBe(true);
	expect(error?.message).toMatch(problem);
	// n8n shows this as "[item N]" beside the message.
	expect((error as { context?: { itemIndex?: number } } | undefined)?.context?.itemIndex).toBe(
		itemIndex,
	);
}
