// Child processes a test starts: each in its own process group (so whatever it starts in turn ends with it), its group
// recorded for the run's teardown (__tests__/support/leftovers.js), which kills and reports any group left running.
//   const child = spawnGroup(process.execPath, [script], { stdio: ['ignore', 'pipe', 'pipe'] });
//   afterAll(() => endGroup(child)); // SIGTERM to the group, SIGKILL after a grace; safe when child is undefined

import { spawn } from 'node:child_process';
import type {
  ChildProcess,
  ChildProcessByStdio,
  SpawnOptions,
  SpawnOptionsWithStdioTuple,
  StdioNull,
  StdioPipe,
} from 'node:child_process';
import { once } from 'node:events';
import type { Readable } from 'node:stream';
import { groupAlive, recordGroup } from '../support/leftovers';
import { scaled } from './time-scale';
import { until } from './until';

declare global {
  /** The process groups this test file started: the test environment kills those still running after its last hook. */
  var __testProcessGroups: Set<number> | undefined;
}

/** Starts `command` as the leader of a new process group and records the group for the run's teardown. */
export function spawnGroup(
  command: string,
  args: readonly string[],
  options: SpawnOptionsWithStdioTuple<StdioNull, StdioPipe, StdioPipe>,
): ChildProcessByStdio<null, Readable, Readable>;
export function spawnGroup(
  command: string,
  args: readonly string[],
  options: SpawnOptionsWithStdioTuple<StdioNull, StdioPipe, StdioNull>,
): ChildProcessByStdio<null, Readable, null>;
export function spawnGroup(command: string, args: readonly string[], options: SpawnOptions): ChildProcess {
  const child = spawn(command, args, { ...options, detached: true });
  // TEST_RUN_DIR is set by the run's globalSetup; outside jest there is no teardown to tell.
  const runDir = process.env.TEST_RUN_DIR;
  if (child.pid !== undefined) (globalThis.__testProcessGroups ??= new Set()).add(child.pid);
  if (child.pid !== undefined && runDir) recordGroup(runDir, child.pid, [command, ...args].join(' '));
  return child;
}

/**
 * Ends the group `child` leads: SIGTERM, then SIGKILL once `graceMs` passed, and waits until the leader has exited and
 * no process of its group is left. Does nothing for `undefined` (a beforeAll that failed before starting it).
 */
export async function endGroup(child: ChildProcess | undefined, graceMs = 2_000): Promise<void> {
  if (child?.pid === undefined) return;
  const pgid = child.pid;
  const exited = child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : once(child, 'exit');
  const signal = (name: NodeJS.Signals): void => {
    try {
      process.kill(-pgid, name);
    } catch {
      // ESRCH: the whole group is gone already.
    }
  };
  signal('SIGTERM');
  const gone = Promise.all([exited, until(() => !groupAlive(pgid), `process group ${pgid} to end`, 3_600_000)]);
  const grace = new Promise<'late'>((resolve) => setTimeout(resolve, scaled(graceMs), 'late').unref());
  if ((await Promise.race([gone, grace])) === 'late') signal('SIGKILL');
  await gone;
}
