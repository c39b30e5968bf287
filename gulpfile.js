// Copies what tsc does not: node and credential icons, and the codex files beside each node.
const { Transform } = require('node:stream');
const { src, dest, parallel } = require('gulp');
const { readRepository } = require('./scripts/lib/repository');

function copyIcons() {
	return src(['nodes/**/*.{png,svg}', 'credentials/**/*.{png,svg}'], {
		base: '.',
		encoding: false,
	}).pipe(dest('dist'));
}

/**
 * A codex documentation link that is a path in this repository (e.g. the node's own page) becomes
 * a link into the repository that package.json names, so that setting stays the only one.
 */
function linkCodexToRepository() {
	const repository = readRepository(__dirname);
	const resolve = (resource) =>
		/^https?:/.test(resource.url)
			? resource
			: { ...resource, url: repository.fileUrl(resource.url) };
	return new Transform({
		objectMode: true,
		transform(file, _encoding, done) {
			const codex = JSON.parse(file.contents.toString('utf8'));
			for (const kind of ['primaryDocumentation', 'credentialDocumentation'])
				if (codex.resources?.[kind]) codex.resources[kind] = codex.resources[kind].map(resolve);
			file.contents = Buffer.from(`${JSON.stringify(codex, null, '\t')}\n`);
			done(null, file);
		},
	});
}

function copyCodex() {
	return src(['nodes/**/*.node.json'], { base: '.' })
		.pipe(linkCodexToRepository())
		.pipe(dest('dist'));
}

exports['build:icons'] = parallel(copyIcons, copyCodex);
exports.default = exports['build:icons'];
