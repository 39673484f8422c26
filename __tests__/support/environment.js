// The test environment of every project: Node's, with every test and hook timeout multiplied by TEST_TIME_SCALE
// (time-scale.js). The timeout a file gives says what the case costs on a quiet machine; how slow this machine is
// is decided once, here, for all of them.
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
}

module.exports = ScaledTimeoutEnvironment;
