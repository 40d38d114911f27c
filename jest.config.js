/** Jest in native ESM mode (run with --experimental-vm-modules), TypeScript through SWC. */
export default {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  // One Postgres for the whole run (embedded, or DATABASE_URL_TEST); see test/support/global-setup.ts.
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  // Fixed fast-check seed in CI (see the file).
  setupFilesAfterEnv: ['<rootDir>/test/support/fastcheck.ts'],
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: {
    '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'es6' } }],
  },
  testTimeout: 60000,
};
