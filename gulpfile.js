// Copies what tsc does not: node and credential icons, and the codex files beside each node.
const { Transform } = require('node:stream');
const { src, dest, parallel } = require('gulp');
const { linkCodexToRepository, readRepository } = require('./scripts/lib/repository');

function copyIcons() {
	return src(['nodes/**/*.{png,svg}', 'credentials/**/*.{png,svg}'], {
		base: '.',
		encoding: false,
	}).pipe(dest('dist'));
}

/** Each codex file linked to the repository package.json names (scripts/lib/repository.js). */
function linkCodex() {
	const repository = readRepository(__dirname);
	return new Transform({
		objectMode: true,
		transform(file, _encoding, done) {
			file.contents = Buffer.from(
				linkCodexToRepository(file.contents.toString('utf8'), repository),
			);
			done(null, file);
		},
	});
}

function copyCodex() {
	return src(['nodes/**/*.node.json'], { base: '.' }).pipe(linkCodex()).pipe(dest('dist'));
}

exports['build:icons'] = parallel(copyIcons, copyCodex);
exports.default = exports['build:icons'];
