// The run's teardown (__tests__/support/global-teardown.js) and the child-process helper (helpers/child.ts): what a run
// leaves running is found, killed and fails the run; a test's process group is ended whole, also when its leader
// ignores SIGTERM.

import path from 'node:path';
import { once } from 'node:events';
import type { ChildProcess } from 'node:child_process';
import { endGroup, spawnGroup } from './helpers/child';
import { isRunning } from './helpers/pids';
import { groupAlive, leftovers, processTable, recordedGroups, snapshot, type Proc } from './support/leftovers';

const FIXTURE = path.join(__dirname, 'fixtures', 'leftover-run.js');

/** Runs the fixture (a run in small) and reads its two JSON lines. */
async function run(
  mode: 'leave' | 'clean',
): Promise<{ left: Record<string, number>; end: { threw: false | string; exitCode: number } }> {
  const child = spawnGroup(process.execPath, [FIXTURE, mode], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  try {
    await once(child, 'exit');
  } finally {
    await endGroup(child);
  }
  const [left, end] = out
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
  return { left, end };
}

describe('the run teardown', () => {
  let pids: number[] = [];
  afterAll(() => {
    for (const pid of pids.filter(isRunning)) process.kill(pid, 'SIGKILL');
  });

  it('kills what a run left running (a child of jest, an orphan in a recorded group, an orphan in its own group), lists each and fails the run', async () => {
    const { left, end } = await run('leave');
    pids = Object.values(left);
    expect(Object.keys(left)).toEqual(['child', 'inRecordedGroup', 'inOwnGroup']);
    expect(end.exitCode).toBe(1);
    expect(end.threw).toMatch(/^The test run left 3 process\(es\) running, now killed: end each in afterAll/);
    for (const pid of pids)
      expect(end.threw).toMatch(new RegExp(`\n {2}pid ${pid} \\(group \\d+\\): \\S+node -e setInterval`));
    // Killed: at most a zombie until whoever inherited it reaps it.
    expect(processTable().filter((proc) => pids.includes(proc.pid) && proc.state !== 'Z')).toEqual([]);
  });

  it('a run that leaves nothing ends quietly, exit code untouched', async () => {
    expect(await run('clean')).toEqual({ left: {}, end: { threw: false, exitCode: 0 } });
  });

  it('counts descendants of jest, recorded groups and its own group started during the run; never jest itself, its ancestors, older processes, zombies or strangers', () => {
    const proc = (pid: number, ppid: number, pgid: number, start: number, state = 'S'): Proc => ({
      pid,
      ppid,
      pgid,
      start,
      state,
      command: `p${pid}`,
    });
    const shell = proc(50, 1, 50, 1);
    const jest = proc(100, 50, 100, 2);
    const olderInGroup = proc(90, 50, 100, 1); // e.g. `npm test | tee`: started with jest
    const before = snapshot([shell, jest, olderInGroup]);
    const child = proc(200, 100, 100, 5);
    const grandchild = proc(201, 200, 100, 6);
    const orphanInGroup = proc(300, 1, 100, 7);
    const orphanInRecordedGroup = proc(400, 1, 400, 8);
    const zombie = proc(500, 100, 100, 9, 'Z');
    const stranger = proc(600, 1, 600, 10);
    const reusedPid = proc(90, 1, 100, 11); // pid 90 again, a later process: not the one in `before`
    const table = [
      shell,
      jest,
      olderInGroup,
      child,
      grandchild,
      orphanInGroup,
      orphanInRecordedGroup,
      zombie,
      stranger,
    ];
    expect(leftovers({ self: 100, before, groups: [400], table }).map((p) => p.pid)).toEqual([200, 201, 300, 400]);
    expect(leftovers({ self: 100, before, groups: [], table: [shell, jest, reusedPid] })).toEqual([reusedPid]);
  });

  it("does not count a process of jest's group that a process from before the run started (a script's load sampler beside npm test)", () => {
    const proc = (pid: number, ppid: number, start: number): Proc => ({
      pid,
      ppid,
      pgid: 40,
      start,
      state: 'S',
      command: `p${pid}`,
    });
    const script = proc(40, 1, 1);
    const sampler = proc(45, 40, 2); // `( while sleep 15; do …; done ) &`, before `npm test`
    const jest = proc(100, 40, 3);
    const before = snapshot([script, sampler, jest]);
    const samplersSleep = proc(46, 45, 9);
    const orphan = proc(300, 1, 9);
    const table = [script, sampler, jest, samplersSleep, orphan];
    expect(leftovers({ self: 100, before, groups: [], table }).map((p) => p.pid)).toEqual([300]);
  });
});

describe('endGroup', () => {
  let child: ChildProcess | undefined;
  afterAll(() => endGroup(child));

  it('ends the whole group, SIGKILLing a leader that ignores SIGTERM once the grace passed', async () => {
    const code = `process.on('SIGTERM', () => undefined);
      const c = require('node:child_process').spawn(process.execPath, ['-e', 'setInterval(() => undefined, 60_000)']);
      process.stdout.write(String(c.pid) + '\\n'); setInterval(() => undefined, 60_000);`;
    child = spawnGroup(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'pipe'] });
    const [line] = (await once(child.stdout!, 'data')) as [Buffer];
    const grandchild = Number(line.toString());
    expect(isRunning(grandchild)).toBe(true);
    await endGroup(child, 200);
    expect(child.signalCode).toBe('SIGKILL');
    expect(groupAlive(child.pid!)).toBe(false);
  });

  it('records the group for the run teardown', () => {
    const sleeper = spawnGroup(process.execPath, ['-e', ''], { stdio: ['ignore', 'pipe', 'pipe'] });
    expect(recordedGroups(process.env.TEST_RUN_DIR!)).toContain(sleeper.pid);
    return endGroup(sleeper);
  });

  it('does nothing for a child a failed beforeAll never started', async () => {
    await expect(endGroup(undefined)).resolves.toBeUndefined();
  });
});
