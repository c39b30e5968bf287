'use strict';
/**
 * Samples the n8n server's V8 heap in use plus external memory (Buffers) from its Prometheus
 * endpoint (N8N_METRICS=true) during a call. Unlike RSS, which a big earlier call leaves high
 * (the next call then grows into memory already mapped), heap in use falls after garbage
 * collection, so the peak above the starting value is fair to whichever variant runs second.
 * A sample waits for n8n's event loop: a peak inside one long synchronous step can be missed.
 */
// Each sample costs n8n about a millisecond of CPU, counted in its CPU figure.
const SAMPLE_MS = 200;

async function heapBytes(url) {
	try {
		// Bounded: a stalled n8n (a long GC before it runs out of heap) must not hold the sampler.
		const response = await fetch(`${url}/metrics`, { signal: AbortSignal.timeout(5000) });
		const text = await response.text();
		const read = (name) => Number(text.match(new RegExp(`^\\w*${name} (\\S+)$`, 'm'))?.[1] ?? NaN);
		return read('nodejs_heap_size_used_bytes') + read('nodejs_external_memory_bytes');
	} catch {
		return NaN;
	}
}

/** Starts sampling; `stop()` resolves with the peak growth in bytes over the first sample. */
async function sampleHeap(url) {
	const start = await heapBytes(url);
	let peak = start;
	let running = true;
	const loop = (async () => {
		while (running) {
			const value = await heapBytes(url);
			if (value > peak) peak = value;
			await new Promise((resolve) => setTimeout(resolve, SAMPLE_MS));
		}
	})();
	return {
		async stop() {
			running = false;
			await loop;
			return Math.max(0, peak - start);
		},
	};
}

module.exports = { sampleHeap };
