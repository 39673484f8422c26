/** Jest against Express 5 (the `express` dev dependency). */
/** @type {import('jest').Config} */
module.exports = {
  preset: 'ts-jest',
  testEnvironment: 'node',
  roots: ['<rootDir>/__tests__'],
  testMatch: ['**/*.test.ts'],
  // Type errors are caught once by `npm run typecheck`; ts-jest only transpiles.
  // Which Express major this run must load (checked by __tests__/express-major.test.ts).
  globals: { EXPRESS_MAJOR: 5 },
  transform: { '^.+\\.ts$': ['ts-jest', { diagnostics: false }] },
};
