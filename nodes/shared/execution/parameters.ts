/**
 * Parameters read once per node execution where they cannot differ between items. n8n's
 * getNodeParameter builds the expression context, walks the value and checks it against the
 * node's description on every call, even for a value without an expression; an operation's
 * prepare reads several such values for each of thousands of items (in a running n8n, about a
 * third of Run Flow's own CPU per item: docs/performance.md).
 */
import { deepCopy, type IExecuteFunctions } from 'n8n-workflow';

type GetNodeParameter = IExecuteFunctions['getNodeParameter'];

/** Whether the saved value holds an expression anywhere (a string that starts with `=`). */
function holdsExpression(value: unknown): boolean {
	if (typeof value === 'string') return value.startsWith('=');
	if (value === null || typeof value !== 'object') return false;
	return Object.values(value).some(holdsExpression);
}

/** The saved value at a dotted path (`options.concurrency`), as n8n's lookup finds it. */
function savedValue(parameters: object, path: string): unknown {
	let value: unknown = parameters;
	for (const key of path.split('.')) {
		if (value === null || typeof value !== 'object') return undefined;
		value = (value as Record<string, unknown>)[key];
	}
	return value;
}

/**
 * The context with a getNodeParameter that reads a value without an expression once and gives
 * each later item a copy of it (a caller may change what it gets, as with n8n's own copy). A
 * parameter the workflow does not hold (hidden by the node's settings) is n8n's fallback, the
 * same for every item: read once per fallback. A value with an expression, a call with options,
 * or a read that throws goes to n8n every time, so each item still gets its own value and its
 * own error.
 */
export function withItemlessParameters<T extends IExecuteFunctions>(ctx: T): T {
	const read = ctx.getNodeParameter.bind(ctx) as (...args: unknown[]) => unknown;
	const parameters = ctx.getNode().parameters;
	const known = new Map<string, unknown>();
	const getNodeParameter = (
		name: string,
		itemIndex: number,
		fallback?: unknown,
		options?: object,
	) => {
		const saved = savedValue(parameters, name);
		// What n8n evaluates: the saved value, or the fallback when none is saved.
		const evaluated = saved === undefined ? fallback : saved;
		const cacheable =
			options === undefined && evaluated !== undefined && !holdsExpression(evaluated);
		if (!cacheable) return read(name, itemIndex, fallback, options);
		const key = saved === undefined ? `${name} ${JSON.stringify(fallback)}` : name;
		if (!known.has(key)) known.set(key, read(name, itemIndex, fallback));
		const value = known.get(key);
		return value !== null && typeof value === 'object' ? deepCopy(value) : value;
	};
	return Object.create(ctx, {
		getNodeParameter: { value: getNodeParameter as GetNodeParameter },
	}) as T;
}
