'use strict';
/**
 * Links in the package's Markdown, checked the way GitHub and the npm page resolve them. Links
 * into the repository are relative: GitHub resolves them in its tree, and the npm page resolves
 * the README's against package.json `repository` (github.com/<owner>/<name>/blob/HEAD/<path>).
 * So a relative link must name a file of the repository, and an #anchor a heading of its target;
 * a link that spells out the repository's GitHub URL would name the repository a second time.
 */
const fs = require('node:fs');
const path = require('node:path');

/** GitHub's heading anchors (npm's README page uses the same), plus explicit ids. */
function headingAnchors(markdown) {
	const anchors = new Set();
	const seen = new Map();
	let inFence = false;
	for (const line of markdown.split('\n')) {
		if (/^\s*```/.test(line)) inFence = !inFence;
		const heading = !inFence && /^#{1,6}\s+(.*)$/.exec(line);
		if (!heading) continue;
		const base = heading[1]
			.trim()
			.toLowerCase()
			.replace(/[^\p{L}\p{N}\s_-]/gu, '')
			.replace(/\s/g, '-');
		const count = seen.get(base) ?? 0;
		seen.set(base, count + 1);
		anchors.add(count ? `${base}-${count}` : base);
	}
	for (const [, id] of markdown.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(id);
	return anchors;
}

/** Every link target of a Markdown text, outside code. */
function linkTargets(markdown) {
	const withoutCode = markdown.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
	return [
		...[...withoutCode.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]),
		...[...withoutCode.matchAll(/^\s*\[[^\]]+\]:\s*(\S+)/gm)].map((m) => m[1]),
		...[...withoutCode.matchAll(/<(?:img|a)\s[^>]*(?:src|href)="([^"]+)"/g)].map((m) => m[1]),
	];
}

/**
 * Problems with the links of one Markdown file (path relative to root), and how many it has.
 * `repositoryName` is the repository's name: a github.com/<anyone>/<name> link is refused.
 */
function checkMarkdownFile(root, file, repositoryName) {
	const problems = [];
	const text = fs.readFileSync(path.join(root, file), 'utf8');
	const targets = linkTargets(text);
	const anchorsOf = (target) => headingAnchors(fs.readFileSync(path.join(root, target), 'utf8'));
	const repoUrl = new RegExp(`^https?://github\\.com/[^/]+/${repositoryName}(?:[/#?]|\\.git|$)`);
	for (const target of targets) {
		if (repoUrl.test(target)) {
			problems.push(
				`${file} links to ${target}: make it relative, so that package.json repository stays the one place that names the repository`,
			);
			continue;
		}
		if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // another site, mailto:
		const [rawPath, anchor] = target.split('#');
		const resolved = rawPath
			? path.posix.normalize(path.posix.join(path.posix.dirname(file), decodeURIComponent(rawPath)))
			: file;
		if (resolved.startsWith('..') || !fs.existsSync(path.join(root, resolved))) {
			problems.push(`${file} links to ${target}, but the repository has no ${resolved}`);
			continue;
		}
		if (anchor && resolved.endsWith('.md') && !anchorsOf(resolved).has(decodeURIComponent(anchor)))
			problems.push(`${file} links to ${target}, but ${resolved} has no heading #${anchor}`);
	}
	return { problems, links: targets.length };
}

/** The Markdown files whose links are checked: the package's docs and each node's page. */
function documentationFiles(root) {
	const inFolder = (folder, match) =>
		fs.existsSync(path.join(root, folder))
			? fs
					.readdirSync(path.join(root, folder), { recursive: true })
					.map((name) => path.posix.join(folder, String(name).split(path.sep).join('/')))
					.filter((name) => match.test(name))
			: [];
	return [
		...['README.md', 'CHANGELOG.md', 'CONTRIBUTING.md', 'ARCHITECTURE.md', 'emulator/README.md'],
		...inFolder('docs', /\.md$/),
		...inFolder('nodes', /\/README\.md$/),
	].filter((file) => fs.existsSync(path.join(root, file)));
}

module.exports = { headingAnchors, linkTargets, checkMarkdownFile, documentationFiles };
