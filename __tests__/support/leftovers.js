// What a test run left running, read from /proc (Linux): the processes the run's globalTeardown kills, lists and
// fails the run for. A process is the run's when it descends from jest's main process, when it is in a process group
// a test started (__tests__/helpers/child.ts records each in TEST_RUN_DIR), or when it is in jest's own process group,
// was started after the run began and has no parent from before the run but init or jest's ancestors (a worker's
// child outlives the worker that started it: it is reparented, its group stays). Zombies are dead already and are not counted.
'use strict';

const fs = require('node:fs');

/** Every process: pid, ppid, pgid, state, start (clock ticks since boot) and command line. Empty off Linux. */
function processTable() {
  let names;
  try {
    names = fs.readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return [];
  }
  const table = [];
  for (const name of names) {
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
      // The command name is in parentheses and may hold spaces and parentheses: the fields follow the last ')'.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const command = fs.readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0').join(' ').trim();
      table.push({
        pid: Number(name),
        state: fields[0],
        ppid: Number(fields[1]),
        pgid: Number(fields[2]),
        start: Number(fields[19]),
        command,
      });
    } catch {
      // Gone between the listing and the read.
    }
  }
  return table;
}

const key = (proc) => `${proc.pid}@${proc.start}`;

/** The processes alive now, as keys a later leftovers() call compares against. */
function snapshot(table = processTable()) {
  return table.map(key);
}

/** True while a process of group `pgid` lives (a zombie does not). */
function groupAlive(pgid, table = processTable()) {
  if (table.length === 0) {
    try {
      process.kill(-pgid, 0);
      return true;
    } catch {
      return false;
    }
  }
  return table.some((proc) => proc.pgid === pgid && proc.state !== 'Z');
}

/** Records the process group `pgid` (started by `command`) in `runDir`, for the run's teardown. */
function recordGroup(runDir, pgid, command) {
  fs.writeFileSync(`${runDir}/group-${pgid}`, command);
}

/** The process groups recorded in `runDir` by recordGroup(). */
function recordedGroups(runDir) {
  return fs
    .readdirSync(runDir)
    .map((name) => /^group-(\d+)$/.exec(name))
    .filter(Boolean)
    .map((match) => Number(match[1]));
}

/**
 * The run's processes still alive: `self` is jest's main process, `before` its snapshot() from the run's start,
 * `groups` the recorded process groups. Never `self` or its ancestors.
 */
function leftovers({ self = process.pid, before = [], groups = [], table = processTable() } = {}) {
  const byPid = new Map(table.map((proc) => [proc.pid, proc]));
  const ancestors = new Set();
  for (let proc = byPid.get(self); proc !== undefined && !ancestors.has(proc.pid); proc = byPid.get(proc.ppid))
    ancestors.add(proc.pid);
  const descends = (proc) => {
    const seen = new Set();
    for (let at = proc; at !== undefined && !seen.has(at.pid); at = byPid.get(at.ppid)) {
      if (at.ppid === self) return true;
      seen.add(at.pid);
    }
    return false;
  };
  const earlier = new Set(before);
  const ownGroup = byPid.get(self)?.pgid;
  const recorded = new Set(groups);
  // A process of jest's group started during the run is the run's when no process that was there before the run
  // owns it: its chain of parents reaches init, jest's own ancestors, or nothing first. One started beside the run in
  // the same shell script (a load sampler's `sleep`) has that script's earlier process as parent and is not.
  const orphaned = (proc) => {
    const seen = new Set();
    for (let at = byPid.get(proc.ppid); at !== undefined && !seen.has(at.pid); at = byPid.get(at.ppid)) {
      if (at.pid === 1 || ancestors.has(at.pid)) return true;
      if (earlier.has(key(at))) return false;
      seen.add(at.pid);
    }
    return true;
  };
  return table.filter(
    (proc) =>
      proc.state !== 'Z' &&
      !ancestors.has(proc.pid) &&
      (descends(proc) ||
        recorded.has(proc.pgid) ||
        (proc.pgid === ownGroup && !earlier.has(key(proc)) && orphaned(proc))),
  );
}

/** SIGKILLs `procs` (and the recorded groups they are in) and waits up to `timeoutMs` for them to be gone. */
async function kill(procs, timeoutMs = 5_000) {
  for (const proc of procs) {
    try {
      process.kill(proc.pid, 'SIGKILL');
    } catch {
      // Gone already.
    }
  }
  const alive = () => {
    const pids = new Set(
      processTable()
        .filter((proc) => proc.state !== 'Z')
        .map(key),
    );
    return procs.filter((proc) => pids.has(key(proc)));
  };
  return settle(alive, timeoutMs);
}

/**
 * Reads `current()` (processes still there) until it is empty or `timeoutMs` passed, and gives its last answer. The
 * processes are not this one's children, so none of them has an exit event to wait on (Node has no pidfd): /proc is
 * read again every 25 ms instead.
 */
async function settle(current, timeoutMs) {
  let left = current();
  for (const end = Date.now() + timeoutMs; left.length > 0 && Date.now() < end; left = current())
    await new Promise((resolve) => setTimeout(resolve, 25));
  return left;
}

/** One line naming a process, for the teardown's report. */
const describe = (proc) => `pid ${proc.pid} (group ${proc.pgid}): ${proc.command || '?'}`;

module.exports = {
  processTable,
  snapshot,
  groupAlive,
  recordGroup,
  recordedGroups,
  leftovers,
  settle,
  kill,
  describe,
};
