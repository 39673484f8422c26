// jest's globalTeardown: kills what the run left running (leftovers.js), lists it, and fails the run for it, whether
// the tests passed or not. Nothing a test starts may outlive the run.
'use strict';

const fs = require('node:fs');
const { describe, kill, leftovers, recordedGroups } = require('./leftovers.js');

module.exports = async function globalTeardown() {
  const run = globalThis.__testRun;
  if (run === undefined) return;
  const left = leftovers({ before: run.before, groups: recordedGroups(run.runDir) });
  fs.rmSync(run.runDir, { recursive: true, force: true });
  if (left.length === 0) return;
  const stubborn = await kill(left);
  const lines = left.map(
    (proc) => `  ${describe(proc)}${stubborn.includes(proc) ? ' (still alive after SIGKILL)' : ''}`,
  );
  process.exitCode = 1;
  throw new Error(
    `The test run left ${left.length} process(es) running, now killed: end each in afterAll ` +
      `(__tests__/helpers/child.ts):\n${lines.join('\n')}`,
  );
};
