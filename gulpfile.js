// Copies what tsc does not: node and credential icons, and the codex files beside each node.
const { src, dest, parallel } = require('gulp');

function copyIcons() {
	return src(['nodes/**/*.{png,svg}', 'credentials/**/*.{png,svg}'], { base: '.', encoding: false }).pipe(
		dest('dist'),
	);
}

function copyCodex() {
	return src(['nodes/**/*.node.json'], { base: '.' }).pipe(dest('dist'));
}

exports['build:icons'] = parallel(copyIcons, copyCodex);
exports.default = exports['build:icons'];
