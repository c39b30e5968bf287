// n8n's logger writes the expected errors of fault tests straight to stdout; `npm test` stays
// quiet on success. Set N8N_LOG_LEVEL=debug to see them.
process.env.N8N_LOG_LEVEL ??= 'silent';

/** @type {import('jest').Config} */
module.exports = {
	preset: 'ts-jest',
	testEnvironment: 'node',
	roots: ['<rootDir>/test'],
	testMatch: ['**/*.test.ts'],
	testPathIgnorePatterns: ['/node_modules/', '/test/e2e/'],
	transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] },
	testTimeout: 60000,
};
