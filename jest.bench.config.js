/** `npm run bench`: benchmarks, not tests. Each prints its figures; none asserts on time. */
const base = require('./jest.config');

module.exports = {
	...base,
	roots: ['<rootDir>/bench'],
	testMatch: ['**/*.bench.ts'],
	testPathIgnorePatterns: ['/node_modules/'],
	testTimeout: 30 * 60 * 1000,
};
