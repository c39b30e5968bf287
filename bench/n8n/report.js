'use strict';
/** min / median / max of each figure, and ratios to the baseline measured in the same rounds. */

function summary(values) {
	const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
	if (!sorted.length) return undefined;
	const mid = Math.floor(sorted.length / 2);
	const median = sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
	return { min: sorted[0], median, max: sorted[sorted.length - 1] };
}

function format(stats, digits = 0) {
	if (!stats) return '–';
	const f = (v) => v.toFixed(digits);
	return `${f(stats.min)} / ${f(stats.median)} / ${f(stats.max)}`;
}

/** Per-round ratio of a figure of `rows` to the same round's figure of `baseline`. */
function ratios(rows, baseline, key) {
	return rows.map((row, i) => (row.failed || baseline[i].failed ? NaN : row[key] / baseline[i][key]));
}

const FIGURES = {
	ms: { title: 'wall ms', digits: 0 },
	cpuMs: { title: 'n8n CPU ms', digits: 0 },
	heapMB: { title: 'n8n heap+external peak growth MB', digits: 0 },
	rssMB: { title: 'n8n+runner RSS peak growth MB', digits: 0 },
	rssMainMB: { title: 'n8n main RSS peak growth MB', digits: 0 },
	rssSampledMB: { title: 'n8n+runner RSS sampled growth MB', digits: 0 },
	rssMainSampledMB: { title: 'n8n main RSS sampled growth MB', digits: 0 },
	rssMainEndMB: { title: 'n8n main RSS growth at the end MB', digits: 0 },
	firstItemMs: { title: 'first chunk ms', digits: 0 },
	cpuPerItemMs: { title: 'Run Flow CPU ms per item (minus items only)', digits: 2 },
};

/**
 * A markdown table: one line per variant with min / median / max of each figure, then the
 * per-round ratios (min / median / max) of wall time and CPU to the baseline variant.
 */
function table(title, results, { baseline, figures, notes = {} }) {
	const head = ['variant', ...figures.map((key) => FIGURES[key].title), 'wall ×base', 'CPU ×base'];
	const lines = [`### ${title}`, '', `| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`];
	for (const [name, rows] of Object.entries(results)) {
		const cells = figures.map((key) =>
			format(summary(rows.map((r) => r[key])), FIGURES[key].digits),
		);
		const isBase = name === baseline;
		const ratio = (key) => (isBase ? '1' : format(summary(ratios(rows, results[baseline], key)), 2));
		const failed = rows.filter((r) => r.failed).length;
		const note = [notes[name], failed && `${failed}/${rows.length} rounds failed`].filter(Boolean);
		const label = note.length ? `${name} (${note.join('; ')})` : name;
		lines.push(`| ${[label, ...cells, ratio('ms'), ratio('cpuMs')].join(' | ')} |`);
	}
	return lines.join('\n');
}

module.exports = { summary, format, table };
