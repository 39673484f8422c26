// The test environment of every project: Node's, with every test and hook timeout multiplied by TEST_TIME_SCALE
// (time-scale.js). The timeout a file gives says what the case costs on a quiet machine; how slow this machine is
// is decided once, here, for all of them. And once a file's tests are done, no process group they started runs on.
'use strict';

const { TestEnvironment } = require('jest-environment-node');
const { timeScale } = require('./time-scale.js');

const scale = timeScale();

class ScaledTimeoutEnvironment extends TestEnvironment {
  /** Tests and hooks already stretched: a beforeEach hook starts once per test but is one object. */
  #scaled = new WeakSet();

  handleTestEvent(event, state) {
    // jest-circus reads `timeout` right after these events (run.js: `test.timeout || state.testTimeout`).
    const entry = event.name === 'test_fn_start' ? event.test : event.name === 'hook_start' ? event.hook : undefined;
    if (entry === undefined || this.#scaled.has(entry)) return;
    this.#scaled.add(entry);
    entry.timeout = Math.round((entry.timeout || state.testTimeout) * scale);
  }

  /**
   * Kills the process groups the file's tests started (helpers/child.ts lists them in `__testProcessGroups`) that are
   * still running: a beforeAll that timed out while starting one never handed it to its afterAll.
   */
  async teardown() {
    for (const pgid of this.global.__testProcessGroups ?? []) {
      try {
        process.kill(-pgid, 'SIGKILL');
      } catch {
        // ESRCH: ended by its test.
      }
    }
    await super.teardown();
  }
}

module.exports = ScaledTimeoutEnvironment;
