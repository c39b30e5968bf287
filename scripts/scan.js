'use strict';
/**
 * `npm run scan`: n8n's own community-package scanner (`@n8n/scan-community-package`, the check
 * that starts n8n's verification) on this package, offline. It runs the scanner's `analyzePackage`
 * with the same file patterns its `analyzePackageByName` uses: the source tree (as the provenance-
 * attested checkout) and the unpacked `npm pack` tarball. The scanner lints with inline ESLint
 * configuration off, so `eslint-disable` comments do not count. Its download and provenance steps
 * need the published package and are not run here.
 * Exits 1 on any finding, printing the scanner's report.
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { pathToFileURL } = require('node:url');

const { buildAndPack } = require('./lib/community-package');

const ROOT = path.resolve(__dirname, '..');
const SCANNER = require.resolve('@n8n/scan-community-package/scanner/scanner.mjs', {
	paths: [ROOT],
});

async function main() {
	const { analyzePackage, SOURCE_FILE_PATTERNS } = await import(pathToFileURL(SCANNER).href);
	const packed = buildAndPack();
	const unpacked = fs.mkdtempSync(path.join(os.tmpdir(), 'botdojo-scan-'));
	try {
		execFileSync('tar', ['-xzf', packed.tarball, '-C', unpacked, '--strip-components=1']);
		const legs = [
			['source', ROOT, SOURCE_FILE_PATTERNS],
			['tarball', unpacked, ['**/*.js', 'package.json']],
		];
		let failed = false;
		for (const [name, dir, patterns] of legs) {
			const result = await analyzePackage(dir, patterns);
			if (result.passed) {
				console.log(`scan ${name}: 0 findings (${patterns.join(', ')})`);
				continue;
			}
			failed = true;
			console.log(`scan ${name}: ${result.message}\n${result.details ?? ''}`);
		}
		if (failed) process.exitCode = 1;
	} finally {
		packed.cleanup();
		fs.rmSync(unpacked, { recursive: true, force: true });
	}
}

main().catch((error) => {
	console.error(error);
	process.exitCode = 1;
});
