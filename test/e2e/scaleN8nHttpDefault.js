'use strict';
/**
 * Preloaded into the e2e n8n (NODE_OPTIONS=--require). n8n sets a default HTTP timeout of
 * 300 000 ms for node requests (`axios.defaults.timeout = 300000` in @n8n/backend-network's
 * configureGlobalAxiosDefaults, which n8n-core runs on load; in n8n 1.x in n8n-core itself; no
 * environment variable changes it).
 * To prove in seconds that Run Flow is not cut by that default, this replaces the value n8n sets
 * with E2E_N8N_HTTP_DEFAULT_MS. Every other axios default stays n8n's own.
 */
const fs = require('node:fs');
const path = require('node:path');

const scaledMs = Number(process.env.E2E_N8N_HTTP_DEFAULT_MS);
const N8N_DEFAULT_MS = 300_000;

try {
	// The axios that n8n's request helpers use: the one @n8n/backend-network resolves (n8n 2.x),
	// or n8n-core's own (n8n 1.x sets the default in n8n-core's axios-config). Resolved from n8n's
	// own bin, as n8n resolves it (not from this repository's node_modules).
	const n8nBin = path.dirname(fs.realpathSync(process.argv[1]));
	const setter = ['@n8n/backend-network', 'n8n-core']
		.map((name) => {
			try {
				return path.dirname(require.resolve(name, { paths: [n8nBin] }));
			} catch {
				return undefined;
			}
		})
		.find(Boolean);
	const axios = require(require.resolve('axios', { paths: [setter] }));
	let timeout = axios.defaults.timeout;
	Object.defineProperty(axios.defaults, 'timeout', {
		configurable: true,
		enumerable: true,
		get: () => timeout,
		set: (value) => {
			timeout = value === N8N_DEFAULT_MS && scaledMs > 0 ? scaledMs : value;
			if (value === N8N_DEFAULT_MS)
				console.log(`[e2e] n8n's default HTTP timeout ${value} ms scaled to ${timeout} ms`);
		},
	});
} catch {
	// Not n8n's main process (e.g. its task runner): nothing to scale.
}
