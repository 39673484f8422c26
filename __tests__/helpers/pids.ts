// Whether a process is alive, by its pid: for tests that prove child processes end (no orphans).

/** True while a process with this pid exists (signal 0 checks without sending anything). */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
