// The process-wide register of live stdio children, killed when the router's process ends: no orphan processes.

import type { ChildProcess } from 'node:child_process';

/**
 * The children alive in this process. Module state on purpose, the one exception to "no module-level mutable state":
 * the process's end is process-wide, and one `exit` hook must reach the children of every router in it.
 */
const live = new Set<ChildProcess>();
/** The signals whose default action ends the process, which the router intercepts only while it has children. */
const FATAL_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

function killAll(): void {
  for (const child of live) {
    try {
      child.kill('SIGKILL');
    } catch {
      // Already gone.
    }
  }
}

/** `exit` handlers must be synchronous: SIGKILL is sent at once, there is no time left to wait for a SIGTERM. */
function onProcessExit(): void {
  killAll();
}

/**
 * A signal that would end the process (no other listener: Node's default action) first kills the children, then
 * is raised again with our listeners gone, so the process still ends by that signal as it would have. When the app
 * listens too, the app owns its shutdown: it calls `mcp.close()` (SIGTERM, then SIGKILL) or `process.exit()` (the
 * `exit` hook), and the children are left alone until then.
 */
function onFatalSignal(signal: NodeJS.Signals): void {
  if (process.listenerCount(signal) > 1) return;
  killAll();
  unhook();
  process.kill(process.pid, signal);
}

let hooked = false;

function hook(): void {
  if (hooked) return;
  hooked = true;
  process.on('exit', onProcessExit);
  // First in line: an app's `process.once(signal)` listener removes itself before it runs, so a reaper called after
  // it would count no app listener and re-raise the signal in the middle of the app's own shutdown.
  for (const signal of FATAL_SIGNALS) process.prependListener(signal, onFatalSignal);
}

/** With no child alive, the process's own signal handling is left exactly as the app set it. */
function unhook(): void {
  if (!hooked) return;
  hooked = false;
  process.removeListener('exit', onProcessExit);
  for (const signal of FATAL_SIGNALS) process.removeListener(signal, onFatalSignal);
}

/**
 * Registers a spawned child until it exits. While any is registered, the process's `exit` SIGKILLs them all, and
 * SIGINT/SIGTERM/SIGHUP with no app listener do too before ending the process. A SIGKILL of the router runs no code:
 * then each child sees EOF on its stdin, on which MCP stdio servers exit (what is not guaranteed: a child that
 * ignores EOF outlives a SIGKILLed router; Node offers no parent-death signal).
 */
export function trackChild(child: ChildProcess): void {
  live.add(child);
  hook();
  child.once('exit', () => {
    live.delete(child);
    if (live.size === 0) unhook();
  });
}

/** How many children are alive (for tests and status). */
export function liveChildCount(): number {
  return live.size;
}
