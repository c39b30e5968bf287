/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals -- benchmark code: runs in jest, never in n8n */
/**
 * The report of alternating rounds: min / median / max of each figure for each side, and of the
 * per-pair ratio candidate ÷ baseline (the ratio within one pair is what a shared machine keeps
 * honest; the raw figures show how noisy the rounds were).
 */
import * as os from 'node:os';

import { spread, type Pair, type Sample } from './rounds';

type Figure = (sample: Sample) => number;

const FIGURES: Array<[string, Figure, number]> = [
	['wall ms', (s) => s.wallMs, 0],
	['CPU ms (user+sys)', (s) => s.cpuMs, 0],
	['heap peak MB', (s) => s.heapMb, 1],
];

const cell = (values: number[], digits: number) => {
	values = values.filter(Number.isFinite);
	if (values.length === 0) return '–';
	const { min, median, max } = spread(values);
	return `${median.toFixed(digits)} (${min.toFixed(digits)}–${max.toFixed(digits)})`;
};

const row = (cells: string[]) => `| ${cells.join(' | ')} |`;

export interface ReportOptions {
	names?: { candidate: string; baseline: string };
	/** Extra figures derived from a sample, e.g. ['CPU ms per item', (s) => s.cpuMs / 200, 2]. */
	figures?: Array<[string, Figure, number]>;
}

/**
 * A markdown table, one row per figure: each side as "median (min–max)" and the ratio
 * candidate ÷ baseline of each pair as "median (min–max)". Heap labels probed during the runs
 * get a row each.
 */
export function report(title: string, pairs: Pair[], options: ReportOptions = {}): string {
	const names = options.names ?? { candidate: 'candidate', baseline: 'baseline' };
	const labels = [
		...new Set(
			pairs.flatMap((p) => [...Object.keys(p.candidate.at), ...Object.keys(p.baseline.at)]),
		),
	];
	const figures: Array<[string, Figure, number]> = [
		...FIGURES,
		...labels.map((label): [string, Figure, number] => [
			`heap at ${label} MB`,
			(s) => s.at[label] ?? NaN,
			1,
		]),
		...[...new Set(pairs.flatMap((p) => Object.keys(p.candidate.memory ?? {})))].map(
			(name): [string, Figure, number] => [`${name} MB`, (s) => s.memory?.[name] ?? NaN, 1],
		),
		...(options.figures ?? []),
	];
	const lines = [
		`${title} — ${pairs.length} alternating rounds; median (min–max)`,
		row(['figure', names.candidate, names.baseline, `${names.candidate} ÷ ${names.baseline}`]),
		row(['---', '---', '---', '---']),
	];
	for (const [name, figure, digits] of figures) {
		const candidate = pairs.map((p) => figure(p.candidate));
		const baseline = pairs.map((p) => figure(p.baseline));
		const ratios = pairs.map((p) => figure(p.candidate) / figure(p.baseline));
		lines.push(row([name, cell(candidate, digits), cell(baseline, digits), cell(ratios, 2)]));
	}
	if (process.env.BENCH_RAW === '1') lines.push(...perRound(pairs, figures, names));
	return lines.join('\n');
}

/** BENCH_RAW=1: each figure round by round, in the order run, beside its summary. */
function perRound(
	pairs: Pair[],
	figures: Array<[string, Figure, number]>,
	names: { candidate: string; baseline: string },
): string[] {
	const list = (values: number[], digits: number) =>
		values.map((v) => v.toFixed(digits)).join(', ');
	return figures.map(([name, figure, digits]) => {
		const candidate = pairs.map((p) => figure(p.candidate));
		const baseline = pairs.map((p) => figure(p.baseline));
		const ratios = candidate.map((value, i) => value / baseline[i]);
		return `per round, ${name}: ${names.candidate} ${list(candidate, digits)}; ${names.baseline} ${list(baseline, digits)}; ÷ ${list(ratios, 2)}`;
	});
}

/** The machine, as a reader of the figures needs it: cores, CPU model, load, node version. */
export function machine(): string {
	const cpus = os.cpus();
	const load = os
		.loadavg()
		.map((l) => l.toFixed(2))
		.join(' ');
	return `${cpus.length} × ${cpus[0]?.model ?? 'unknown CPU'}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GB, Node ${process.version}, load ${load}`;
}
