// jest's globalTeardown: kills what the run left running (leftovers.js), lists it, and fails the run for it, whether
// the tests passed or not. Nothing a test starts may outlive the run.
'use strict';

const fs = require('node:fs');
const { describe, kill, leftovers, recordedGroups, settle } = require('./leftovers.js');

/** How long a process the run left may take to end by itself before it counts. */
const GRACE_MS = 2_000;

module.exports = async function globalTeardown() {
  const run = globalThis.__testRun;
  if (run === undefined) return;
  const groups = recordedGroups(run.runDir);
  // A process on its way out is not left behind: a worker's helpers (tsx's esbuild service) end when the worker's
  // pipes close, a moment after it exits.
  const left = await settle(() => leftovers({ before: run.before, groups }), GRACE_MS);
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
