/* eslint-disable @n8n/community-nodes/no-restricted-globals -- benchmark code: runs in jest, never in n8n */
/**
 * Heap growth of one streamed run, sampled after a full gc at the same points of the stream for
 * the node and the raw loop: every `interval` bytes, at the last chunk before the final line,
 * and once the final line is parsed. The peak counts the final line (issue 10 §2 measures
 * "through the end of the final line", not only while tokens stream).
 */
import { spread } from '../lib';
import type { RawHooks } from './raw';

const gc = (global as { gc?: () => void }).gc;

export interface HeapFigures {
	/** Peak while the events stream (before the final line's first chunk). */
	eventsPeak: number;
	/** At the last chunk before the final line: the tokens collected, nothing of the line yet. */
	eventsDone: number;
	/** Peak through the end of the final line. */
	peak: number;
	/** Once the final line is parsed (the collected text still alive). */
	finalParsed: number;
}

/** Probes for one run; `figures` are bytes above the heap in use (after gc) when it started. */
export function heapProbes(totalBytes: number, finalStartsAt: number) {
	if (!gc) throw new Error('run with node --expose-gc (npm run bench does)');
	const interval = Math.max(256 * 1024, Math.floor(totalBytes / 80));
	const figures: HeapFigures = { eventsPeak: 0, eventsDone: NaN, peak: 0, finalParsed: NaN };
	gc();
	const base = process.memoryUsage().heapUsed;
	let next = interval;
	const heap = () => {
		gc!();
		const grown = process.memoryUsage().heapUsed - base;
		figures.peak = Math.max(figures.peak, grown);
		return grown;
	};
	const hooks: RawHooks = {
		beforeChunk(before, length) {
			const straddles = before <= finalStartsAt && finalStartsAt < before + length;
			if (!straddles && before < next) return;
			next = before + interval;
			const grown = heap();
			if (before <= finalStartsAt) figures.eventsPeak = Math.max(figures.eventsPeak, grown);
			if (straddles) figures.eventsDone = grown;
		},
		afterFinal() {
			figures.finalParsed = heap();
		},
	};
	return { hooks, figures };
}

const cell = (values: number[], textBytes: number) => {
	const mb = spread(values.map((v) => v / 2 ** 20));
	const times = spread(values.map((v) => v / textBytes));
	return `${mb.median.toFixed(1)} (${mb.min.toFixed(1)}–${mb.max.toFixed(1)}) · ${times.median.toFixed(2)}× (${times.min.toFixed(2)}–${times.max.toFixed(2)})`;
};

/** A markdown table: per side, each figure as MB and × the collected text, median (min–max). */
export function heapReport(
	title: string,
	textBytes: number,
	sides: Array<[string, HeapFigures[]]>,
): string {
	const row = (cells: string[]) => `| ${cells.join(' | ')} |`;
	const names: Array<[keyof HeapFigures, string]> = [
		['eventsDone', 'after the last chunk of events'],
		['eventsPeak', 'peak while events stream'],
		['finalParsed', 'after the final line is parsed'],
		['peak', 'peak through the end of the final line'],
	];
	return [
		`${title}: heap growth after gc, MB · × text (${(textBytes / 2 ** 20).toFixed(1)} MB); median (min–max) of ${sides[0][1].length} rounds`,
		row(['heap growth', ...sides.map(([name]) => name)]),
		row(['---', ...sides.map(() => '---')]),
		...names.map(([key, label]) =>
			row([
				label,
				...sides.map(([, runs]) =>
					cell(
						runs.map((figures) => figures[key]),
						textBytes,
					),
				),
			]),
		),
	].join('\n');
}
