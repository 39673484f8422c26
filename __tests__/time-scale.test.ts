// TEST_TIME_SCALE: the one factor (support/time-scale.js) by which the test environment (support/environment.js)
// stretches every test and hook timeout, and which until() and scaled() apply to the other waits.

import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { scaled } from './helpers/time-scale';
import { groupAlive } from './support/leftovers';

const { timeScale } = require('./support/time-scale.js') as {
  timeScale: (env: NodeJS.ProcessEnv, cores: number, load: number) => number;
};

interface Entry {
  timeout: number | undefined;
}
interface Environment {
  global: { __testProcessGroups?: Set<number> };
  handleTestEvent(event: { name: string; test?: Entry; hook?: Entry }, state: { testTimeout: number }): void;
  teardown(): Promise<void>;
}

/** The test environment as jest makes it, loaded with TEST_TIME_SCALE set to `scale`. */
function environmentScaledBy(scale: string): Environment {
  const saved = process.env.TEST_TIME_SCALE;
  process.env.TEST_TIME_SCALE = scale;
  try {
    let Env: new (config: unknown, context: unknown) => Environment = undefined as never;
    jest.isolateModules(() => {
      Env = require('./support/environment.js');
    });
    const projectConfig = { testEnvironmentOptions: {}, globals: {}, customExportConditions: ['node'] };
    return new Env({ globalConfig: {}, projectConfig }, { console, docblockPragmas: {}, testPath: __filename });
  } finally {
    process.env.TEST_TIME_SCALE = saved;
  }
}

describe('timeScale', () => {
  it.each([
    ['an idle 2-core machine', 2, 0, 1],
    ['load 8 on 2 cores', 2, 8, 5],
    ['load 15 on 2 cores', 2, 15, 8.5],
    ['load 2 on 8 cores', 8, 2, 1.3],
    ['load 100 on 2 cores: at most 10', 2, 100, 10],
  ])('%s: %s cores, load %s → %s', (_name, cores, load, scale) => {
    expect(timeScale({}, cores, load)).toBe(scale);
  });

  it('TEST_TIME_SCALE, when set, is the factor whatever the load', () => {
    expect(timeScale({ TEST_TIME_SCALE: '3' }, 2, 15)).toBe(3);
    expect(timeScale({ TEST_TIME_SCALE: '' }, 2, 0)).toBe(1);
  });

  it.each(['0.5', '0', 'fast', '-2'])('TEST_TIME_SCALE=%s is refused, naming it', (value) => {
    expect(() => timeScale({ TEST_TIME_SCALE: value }, 2, 0)).toThrow(`TEST_TIME_SCALE=${value}: use a number >= 1`);
  });

  it('is set for the run by jest.config.js, and is what scaled() multiplies by', () => {
    const factor = Number(process.env.TEST_TIME_SCALE);
    expect(factor).toBeGreaterThanOrEqual(1);
    expect(scaled(1_000)).toBe(Math.round(1_000 * factor));
  });
});

describe('the test environment', () => {
  it("stretches a test's and a hook's timeout by the factor, the default one included, and a beforeEach hook only once", async () => {
    const environment = environmentScaledBy('3');
    const test: Entry = { timeout: undefined };
    const hook: Entry = { timeout: 100 };
    environment.handleTestEvent({ name: 'test_fn_start', test }, { testTimeout: 5_000 });
    environment.handleTestEvent({ name: 'hook_start', hook }, { testTimeout: 5_000 });
    environment.handleTestEvent({ name: 'hook_start', hook }, { testTimeout: 5_000 });
    expect([test.timeout, hook.timeout]).toEqual([15_000, 300]);
    await environment.teardown();
  });

  it("kills the file's process groups still running once its last hook is done", async () => {
    const environment = environmentScaledBy('1');
    const child = spawn(process.execPath, ['-e', 'setInterval(() => undefined, 60_000)'], {
      detached: true,
      stdio: 'ignore',
    });
    const exited = once(child, 'exit');
    environment.global.__testProcessGroups = new Set([child.pid!]);
    await environment.teardown();
    expect(await exited).toEqual([null, 'SIGKILL']);
    expect(groupAlive(child.pid!)).toBe(false);
  });
});
