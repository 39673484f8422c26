// CPU time of a process's descendants, read from Linux's /proc: a gateway's upstream programs are processes of their own.

import { readdirSync, readFileSync } from 'node:fs';

/** Linux's clock ticks per second (`getconf CLK_TCK`): 100 on every kernel configuration Node supports. */
const TICKS_PER_SECOND = 100;

interface ProcStat {
  readonly pid: number;
  readonly ppid: number;
  /** utime + stime: its own, in ticks. */
  readonly ownTicks: number;
  /** cutime + cstime: that of the children it has waited for (and theirs), in ticks. */
  readonly reapedTicks: number;
}

/** One /proc/<pid>/stat, or undefined for a process that exited while being read. */
function readStat(pid: string): ProcStat | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name (field 2) is in parentheses and may hold spaces: the numeric fields start after the last ')'.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  // proc(5): after the name, field 4 (ppid) is index 1, fields 14–17 (utime stime cutime cstime) are 11–14.
  const at = (index: number): number => Number(fields[index]);
  return { pid: Number(pid), ppid: at(1), ownTicks: at(11) + at(12), reapedTicks: at(13) + at(14) };
}

/**
 * CPU time (user + system, µs) used so far by every live descendant of `root`, each with the children it has
 * reaped: a gateway's upstream programs, and those a wrapper like supergateway starts through a shell. 0 where
 * /proc does not exist. Resolution is one clock tick (10 ms): read it around runs of seconds, not per request.
 */
export function descendantsCpuMicros(root: number = process.pid): number {
  let entries: string[];
  try {
    entries = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return 0;
  }
  const children = new Map<number, ProcStat[]>();
  for (const entry of entries) {
    const stat = readStat(entry);
    if (stat === undefined) continue;
    const siblings = children.get(stat.ppid) ?? [];
    siblings.push(stat);
    children.set(stat.ppid, siblings);
  }
  let ticks = 0;
  const pending = [...(children.get(root) ?? [])];
  for (let stat = pending.pop(); stat !== undefined; stat = pending.pop()) {
    ticks += stat.ownTicks + stat.reapedTicks;
    pending.push(...(children.get(stat.pid) ?? []));
  }
  return (ticks * 1e6) / TICKS_PER_SECOND;
}

/**
 * CPU time (user + system, µs) one process has used so far: `own`, and `reaped` by the children it has waited for
 * (a gateway that starts a process per request); both 0 when it is gone.
 */
export function processCpuMicros(pid: number): { own: number; reaped: number } {
  const stat = readStat(String(pid));
  return stat === undefined
    ? { own: 0, reaped: 0 }
    : { own: (stat.ownTicks * 1e6) / TICKS_PER_SECOND, reaped: (stat.reapedTicks * 1e6) / TICKS_PER_SECOND };
}
