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

/** Waits until the process tree is idle (saving an execution may finish after the answer). */
async function settle(pid) {
	for (let i = 0; i < 25; i++) {
		const before = treeCpuMs(pid);
		await new Promise((resolve) => setTimeout(resolve, 200));
		if (treeCpuMs(pid) - before <= 20) return;
	}
}

module.exports = { treeCpuMs, resetPeakRss, peakRssGrowth, processTree, settle };
