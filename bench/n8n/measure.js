'use strict';
/**
 * One measured call of a bench workflow: n8n's CPU, peak RSS and heap growth around it. RSS is
 * n8n's process tree (the main process and its task runner) and, beside it, the main process
 * alone, both as the peak (VmHWM) and as the largest of samples every 100 ms.
 */
const { callWebhook } = require('./client');
const { sampleHeap } = require('./heap');
const { treeCpuMs, resetPeakRss, peakRssGrowth, sampleRss, rssSplit, settle } = require('./proc');

/** One call of a webhook with n8n's CPU and peak RSS growth around it. `heap: false` leaves out
 *  the heap sampler, whose polls of n8n's /metrics cost n8n CPU in proportion to the wall time. */
async function measure(ctx, key, options, check, { reset = true, heap: sampled = true } = {}) {
	// Each run leaves its record in the emulator (20 MB at 1M tokens): forget them.
	if (reset) await ctx.emu.reset();
	await settle(ctx.pid);
	const rssBefore = resetPeakRss(ctx.pid);
	const rssSampler = sampleRss(ctx.pid);
	const heap = sampled ? await sampleHeap(ctx.n8n.url) : { stop: async () => NaN };
	const cpuBefore = treeCpuMs(ctx.pid);
	const url = `${ctx.n8n.url}/webhook/${ctx.workflows[key].path}${options.query ?? ''}`;
	let result;
	let heapMB;
	try {
		result = await callWebhook(url, options);
	} finally {
		// Also when the call throws (n8n died): a sampler left running keeps this process alive.
		heapMB = (await heap.stop()) / 1e6;
		if (result === undefined) rssSampler.stop();
	}
	await settle(ctx.pid);
	// Sampled until n8n is idle again, the same span as the peak (VmHWM) read below.
	const rssSampled = rssSampler.stop();
	const cpuMs = treeCpuMs(ctx.pid) - cpuBefore;
	const rssMB = peakRssGrowth(ctx.pid, rssBefore) / 1e6;
	const rss = rssSplit(ctx.pid, rssBefore, rssSampled);
	if (result.status !== 200)
		throw new Error(
			`${key} answered ${result.status}: ${result.raw ?? JSON.stringify(result.json)}`,
		);
	check?.(result);
	return {
		...result,
		cpuMs,
		rssMB,
		heapMB,
		rssMainMB: rss.mainPeak / 1e6,
		rssSampledMB: rss.treeSampled / 1e6,
		rssMainSampledMB: rss.mainSampled / 1e6,
		rssMainEndMB: rss.mainEnd / 1e6,
		processes: rss.processes,
	};
}

module.exports = { measure };
