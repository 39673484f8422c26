// How much slower than a quiet machine this one is: the one factor every "the machine is slow" wait of the tests is
// multiplied by (test and hook timeouts, until()'s deadline, a deadline a test passes to a router), never a number
// tuned per file.
'use strict';

const os = require('node:os');

/** The most a wait is stretched: beyond ten times a quiet machine's time, a test that still waits is stuck. */
const MAX_SCALE = 10;

/**
 * `TEST_TIME_SCALE` when set (a number >= 1), else one plus the runnable processes per core beyond one: the one-minute
 * load average plus the cores, over the cores (1 on an idle machine; 5 at load 8 on 2 cores), at most 10.
 */
function timeScale(env = process.env, cores = os.cpus().length, load = os.loadavg()[0]) {
  if (env.TEST_TIME_SCALE !== undefined && env.TEST_TIME_SCALE !== '') {
    const set = Number(env.TEST_TIME_SCALE);
    if (!Number.isFinite(set) || set < 1) throw new Error(`TEST_TIME_SCALE=${env.TEST_TIME_SCALE}: use a number >= 1`);
    return set;
  }
  const perCore = (load + cores) / Math.max(1, cores);
  return Math.min(MAX_SCALE, Math.max(1, Math.round(perCore * 10) / 10));
}

module.exports = { timeScale, MAX_SCALE };
