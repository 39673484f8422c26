// jest's globalSetup: the run's directory (TEST_RUN_DIR, where child.ts records the process groups tests start) and
// the processes alive before any test ran, for global-teardown.js.
'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { snapshot } = require('./leftovers.js');

module.exports = async function globalSetup() {
  const runDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-test-run-'));
  // Read by the workers, which jest starts after this (they inherit the environment).
  process.env.TEST_RUN_DIR = runDir;
  globalThis.__testRun = { runDir, before: snapshot() };
};
