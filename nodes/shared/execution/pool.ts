/**
 * A small worker pool: at most `concurrency` tasks at once, results in input order. After a
 * failure no new task starts, the running ones finish, then the first failure is thrown.
 */
export async function runPool<T>(
	count: number,
	concurrency: number,
	task: (index: number) => Promise<T>,
	shouldStop: () => boolean = () => false,
): Promise<T[]> {
	const results = new Array<T>(count);
	let next = 0;
	let failed = false;
	let failure: unknown;

	async function worker(): Promise<void> {
		while (next < count && !failed && !shouldStop()) {
			const index = next++;
			try {
				results[index] = await task(index);
			} catch (error) {
				if (!failed) failure = error;
				failed = true;
			}
		}
	}

	const workers = Array.from({ length: Math.max(1, Math.min(concurrency, count)) }, worker);
	await Promise.all(workers);
	if (failed) throw failure;
	return results;
}
