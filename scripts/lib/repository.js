'use strict';
/**
 * The one setting that names the package's repository: package.json `repository`. Everything
 * that links to the repository is relative (GitHub and the npm page resolve README links against
 * `repository`) or built from here: the codex files' documentation links (at build time) and
 * check:tarball's expectations. Until the real repository is set, it names the placeholder owner
 * below, which check:tarball reports and a release refuses.
 */
const fs = require('node:fs');
const path = require('node:path');

const PLACEHOLDER_OWNER = 'OWNER';

/** owner/name of a GitHub URL (https, git+https, ssh, or `github:owner/name`), or undefined. */
function githubRepo(url) {
	const match = /(?:github\.com[/:]|^github:)([^/\s]+)\/([^/#?\s]+?)(?:\.git)?(?:[/#?]|$)/.exec(
		url ?? '',
	);
	return match ? { owner: match[1], name: match[2] } : undefined;
}

/** The repository package.json names: owner, name, web URL and links to its files. */
function repositoryOf(pkg) {
	const url = typeof pkg.repository === 'string' ? pkg.repository : pkg.repository?.url;
	const repo = githubRepo(url);
	if (!repo) return undefined;
	const web = `https://github.com/${repo.owner}/${repo.name}`;
	return {
		...repo,
		slug: `${repo.owner}/${repo.name}`,
		web,
		isPlaceholder: repo.owner === PLACEHOLDER_OWNER,
		/** A file or folder of the default branch, as npm resolves README links (blob/HEAD). */
		fileUrl: (file) => `${web}/blob/HEAD/${file}`,
	};
}

function readRepository(root) {
	return repositoryOf(JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')));
}

/**
 * A codex file's text with each documentation link that is a path of this repository (a node's
 * own page) turned into a link into `repository`: what every build ships (npm run build's gulp
 * step, and the pack of npm start and the e2e suites), so that package.json stays the one place.
 */
function linkCodexToRepository(codexText, repository) {
	const codex = JSON.parse(codexText);
	const resolve = (resource) =>
		/^https?:/.test(resource.url)
			? resource
			: { ...resource, url: repository.fileUrl(resource.url) };
	for (const kind of ['primaryDocumentation', 'credentialDocumentation'])
		if (codex.resources?.[kind]) codex.resources[kind] = codex.resources[kind].map(resolve);
	return `${JSON.stringify(codex, null, '\t')}\n`;
}

module.exports = {
	PLACEHOLDER_OWNER,
	githubRepo,
	repositoryOf,
	readRepository,
	linkCodexToRepository,
};
