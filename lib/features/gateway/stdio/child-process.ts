// One supervised stdio child: spawned without a shell and with a minimal environment, its streams read, stopped with SIGTERM then SIGKILL.

import { spawn, type ChildProcess } from 'node:child_process';
import { trackChild } from './stdio-reaper';

/** The program a stdio upstream runs. */
export interface StdioProgram {
  /** The executable, looked up on PATH; run without a shell, so nothing in it or in `args` is interpreted. */
  readonly command: string;
  readonly args: readonly string[];
  /** Added to the minimal environment the child gets (never the router's own). Values never appear in logs or errors. */
  readonly env?: Readonly<Record<string, string>>;
  /** The child's working directory. Defaults to the router's. */
  readonly cwd?: string;
}

/**
 * The most bytes written to a child's stdin and not yet read by it: a child that stops reading its input makes
 * requests fail at once rather than grow the router's write buffer without bound.
 */
export const MAX_UNREAD_INPUT_BYTES = 16 * 1024 * 1024;

/** How long a child has to exit after SIGTERM before it is sent SIGKILL, in milliseconds. */
export const STOP_GRACE_MS = 2_000;

/**
 * The router's variables a child inherits, as the MCP SDK's stdio client does (`getDefaultEnvironment`): enough to
 * find programs and a home directory, none of the router's secrets.
 */
const INHERITED_ENV =
  process.platform === 'win32'
    ? [
        'APPDATA',
        'HOMEDRIVE',
        'HOMEPATH',
        'LOCALAPPDATA',
        'PATH',
        'PATHEXT',
        'PROCESSOR_ARCHITECTURE',
        'SYSTEMDRIVE',
        'SYSTEMROOT',
        'TEMP',
        'USERNAME',
        'USERPROFILE',
        'PROGRAMFILES',
      ]
    : ['HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER'];

/** The child's environment: the inherited minimum, then the program's own. */
export function childEnv(own: Readonly<Record<string, string>> | undefined): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of INHERITED_ENV) {
    const value = process.env[name];
    // A value starting with "()" is an exported shell function (the SDK skips them too: a Shellshock vector).
    if (value !== undefined && !value.startsWith('()')) env[name] = value;
  }
  return { ...env, ...own };
}

/** What the owner of a child hears from it. */
export interface StdioProcessEvents {
  onStdout(chunk: Buffer): void;
  onStderr(chunk: Buffer): void;
  /** Once, when the child has ended (its streams closed) or could not be started: a phrase such as "exited (code 1)". */
  onEnd(why: string): void;
}

/** A running (or starting) child. */
export interface StdioProcess {
  /** Resolves once the child runs; rejects with a phrase ("could not be started (ENOENT)") when it cannot. */
  readonly started: Promise<void>;
  readonly pid: number | undefined;
  /** Writes one line to the child's stdin: 'gone' once the child is, 'full' past {@link MAX_UNREAD_INPUT_BYTES} unread. */
  writeLine(line: string): 'written' | 'gone' | 'full';
  /** Closes stdin and sends SIGTERM, then SIGKILL after {@link STOP_GRACE_MS}; resolves once the child has exited. */
  stop(): Promise<void>;
}

function describeExit(code: number | null, signal: NodeJS.Signals | null): string {
  return signal !== null ? `exited (signal ${signal})` : `exited (code ${String(code)})`;
}

/** The errno of a spawn failure (ENOENT, EACCES…), never its message, which holds the command line. */
function errnoOf(error: unknown): string {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? code : 'unknown error';
}

/**
 * Spawns `program` (MCP transports › stdio: the client launches the server as a subprocess; messages on its stdin
 * and stdout, its stderr free-form logging). The child is registered with the reaper from the moment it runs.
 */
export function startStdioProcess(program: StdioProgram, events: StdioProcessEvents): StdioProcess {
  let child: ChildProcess;
  let exited = false;
  let ended = false;
  const end = (why: string): void => {
    if (ended) return;
    ended = true;
    events.onEnd(why);
  };
  let started: Promise<void>;
  try {
    child = spawn(program.command, [...program.args], {
      shell: false,
      env: childEnv(program.env),
      cwd: program.cwd,
      stdio: ['pipe', 'pipe', 'pipe'],
      windowsHide: true,
    });
  } catch (error) {
    // Invalid arguments (a NUL byte in the command) throw synchronously.
    const why = `could not be started (${errnoOf(error)})`;
    queueMicrotask(() => end(why));
    started = Promise.reject(new Error(why));
    started.catch(() => undefined);
    return { started, pid: undefined, writeLine: () => 'gone', stop: () => Promise.resolve() };
  }
  const exitedPromise = new Promise<void>((resolve) => {
    child.once('exit', () => {
      exited = true;
      resolve();
    });
  });
  started = new Promise<void>((resolve, reject) => {
    child.once('spawn', () => {
      trackChild(child);
      resolve();
    });
    child.once('error', (error) => {
      if (child.pid !== undefined) return;
      exited = true;
      const why = `could not be started (${errnoOf(error)})`;
      reject(new Error(why));
      end(why);
    });
  });
  started.catch(() => undefined);
  // Later errors (a failed kill, a write after exit) come with 'exit' or 'close'; unhandled they would crash the router.
  child.on('error', () => undefined);
  child.stdin?.on('error', () => undefined);
  child.stdout?.on('data', (chunk: Buffer) => events.onStdout(chunk));
  child.stderr?.on('data', (chunk: Buffer) => events.onStderr(chunk));
  // 'close' comes after the child's stdout is read to its end, so its last messages are handled before the end is told.
  child.once('close', (code: number | null, signal: NodeJS.Signals | null) => end(describeExit(code, signal)));
  let stopping: Promise<void> | undefined;
  let corked = false;
  return {
    started,
    pid: child.pid,
    writeLine(line) {
      if (exited || child.stdin === null || child.stdin.destroyed || !child.stdin.writable) return 'gone';
      const stdin = child.stdin;
      if (stdin.writableLength > MAX_UNREAD_INPUT_BYTES) return 'full';
      // The lines of one turn of the event loop (the calls read from every socket that was ready) leave in one write:
      // one system call, and one wake-up of the child, for all of them, in the order they were written.
      if (!corked) {
        corked = true;
        stdin.cork();
        setImmediate(() => {
          corked = false;
          stdin.uncork();
        });
      }
      stdin.write(`${line}\n`);
      return 'written';
    },
    stop() {
      if (exited) return Promise.resolve();
      stopping ??= (async () => {
        // MCP transports › stdio › Shutdown: close the child's input first, then SIGTERM, then SIGKILL.
        child.stdin?.end();
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
        timer.unref();
        await exitedPromise;
        clearTimeout(timer);
      })();
      return stopping;
    },
  };
}
