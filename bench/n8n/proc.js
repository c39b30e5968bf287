'use strict';
/**
 * CPU time and memory of a process tree, read from /proc (Linux): n8n's main process and its
 * children (the task runner that executes Code nodes).
 */
const fs = require('node:fs');

const TICK_MS = 10; // USER_HZ is 100 on Linux

function readStat(pid) {
	try {
		const text = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
		// The command name (field 2) may hold spaces: split after its closing parenthesis.
		const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
		return {
			ppid: Number(fields[1]),
			utime: Number(fields[11]),
			stime: Number(fields[12]),
			cutime: Number(fields[13]),
			cstime: Number(fields[14]),
		};
	} catch {
		return undefined; // gone
	}
}

/** The process and all its live descendants. */
function processTree(rootPid) {
	const children = new Map();
	for (const name of fs.readdirSync('/proc')) {
		if (!/^\d+$/.test(name)) continue;
		const stat = readStat(name);
		if (!stat) continue;
		if (!children.has(stat.ppid)) children.set(stat.ppid, []);
		children.get(stat.ppid).push(Number(name));
	}
	const tree = [rootPid];
	for (let i = 0; i < tree.length; i++) tree.push(...(children.get(tree[i]) ?? []));
	return tree;
}

/**
 * CPU milliseconds (user + system) used so far by the tree, including children that already
 * exited and were reaped (cutime/cstime of their parent).
 */
function treeCpuMs(rootPid) {
	let ticks = 0;
	for (const pid of processTree(rootPid)) {
		const stat = readStat(pid);
		if (stat) ticks += stat.utime + stat.stime + stat.cutime + stat.cstime;
	}
	return ticks * TICK_MS;
}

function statusField(pid, field) {
	try {
		const match = fs
			.readFileSync(`/proc/${pid}/status`, 'utf8')
			.match(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm'));
		return match ? Number(match[1]) * 1024 : 0;
	} catch {
		return 0;
	}
}

/** Resets the peak RSS (VmHWM) of each process of the tree, so that a run's peak can be read. */
function resetPeakRss(rootPid) {
	const before = new Map();
	for (const pid of processTree(rootPid)) {
		try {
			fs.writeFileSync(`/proc/${pid}/clear_refs`, '5');
		} catch {
			// not ours or gone: its peak stays the lifetime peak, rss growth then overstates
		}
		before.set(pid, statusField(pid, 'VmRSS'));
	}
	return before;
}

/**
 * Peak RSS growth of the tree since resetPeakRss: per process, VmHWM minus its RSS at the reset
 * (a process born during the run counts its whole peak).
 */
function peakRssGrowth(rootPid, before) {
	let growth = 0;
	for (const pid of processTree(rootPid))
		growth += Math.max(0, statusField(pid, 'VmHWM') - (before.get(pid) ?? 0));
	return growth;
}

/** A process's command line, shortened for a report. */
function commandLine(pid) {
	try {
		const text = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
		return text.length > 100 ? `${text.slice(0, 97)}...` : text;
	} catch {
		return '(gone)';
	}
}

/**
 * Samples the VmRSS of each process of the tree every `everyMs`, as a harness outside n8n would
 * (a peak shorter than the interval is missed, unlike VmHWM). `stop()` returns the largest value
 * seen per pid and the largest sum over the tree.
 */
function sampleRss(rootPid, everyMs = 100) {
	const perPid = new Map();
	let treeMax = 0;
	const take = () => {
		let sum = 0;
		for (const pid of processTree(rootPid)) {
			const rss = statusField(pid, 'VmRSS');
			sum += rss;
			if (rss > (perPid.get(pid) ?? 0)) perPid.set(pid, rss);
		}
		treeMax = Math.max(treeMax, sum);
	};
	take();
	const timer = setInterval(take, everyMs);
	return {
		stop() {
			clearInterval(timer);
			take();
			return { perPid, treeMax };
		},
	};
}

/**
 * RSS growth of n8n's main process beside its tree's, from the reset (`before`, from
 * resetPeakRss) to the peak (VmHWM), to the largest sample (`sampled`, from sampleRss().stop())
 * and to the end (now), in bytes, with one line per process.
 */
function rssSplit(rootPid, before, sampled) {
	const processes = processTree(rootPid).map((pid) => ({
		pid,
		command: commandLine(pid),
		before: before.get(pid), // undefined: born during the run
		peak: statusField(pid, 'VmHWM'),
		sampledMax: sampled.perPid.get(pid) ?? 0,
		end: statusField(pid, 'VmRSS'),
	}));
	const main = processes[0];
	const beforeSum = [...before.values()].reduce((a, b) => a + b, 0);
	return {
		mainPeak: Math.max(0, main.peak - (main.before ?? 0)),
		mainSampled: Math.max(0, main.sampledMax - (main.before ?? 0)),
		mainEnd: main.end - (main.before ?? 0),
		treeSampled: Math.max(0, sampled.treeMax - beforeSum),
		processes,
	};
}

/** Waits until the process tree is idle (saving an execution may finish after the answer). */
async function settle(pid) {
	for (let i = 0; i < 25; i++) {
		const before = treeCpuMs(pid);
		await new Promise((resolve) => setTimeout(resolve, 200));
		if (treeCpuMs(pid) - before <= 20) return;
	}
}

module.exports = {
	treeCpuMs,
	resetPeakRss,
	peakRssGrowth,
	processTree,
	sampleRss,
	rssSplit,
	settle,
};
