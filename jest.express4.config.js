/**
 * The same suite against Express 4: `express4` is an npm alias of express@4, and every
 * `require('express')` (the library's and the tests') resolves to it.
 */
const base = require('./jest.config.js');

/** @type {import('jest').Config} */
module.exports = {
  ...base,
  displayName: 'express4',
  globals: { EXPRESS_MAJOR: 4 },
  moduleNameMapper: { '^express$': 'express4', '^express/package\\.json$': 'express4/package.json' },
};
