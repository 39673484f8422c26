// The stdio options of mcp.upstream() (command, args, env, cwd, processes…): checked and defaulted once, at registration.

import { statSync } from 'node:fs';
import { isObject } from '../../../core/jsonrpc/types';
import type { OptionReader } from '../../../options/option-reader';
import type { RequestContext } from '../../../core/registry/request-context';

/** Default `maxProcesses`: the most per-principal processes of one upstream running at once. */
export const DEFAULT_MAX_PROCESSES = 10;
/** Default `idleTimeoutMs`: a per-principal process unused this long is ended. */
export const DEFAULT_IDLE_TIMEOUT_MS = 10 * 60_000;

/** A POSIX environment variable name: what a child's environment may hold without surprises across shells and platforms. */
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * The environment of an upstream's process, beside what the transport passes on. A function is called with the
 * caller's `ctx` when a per-principal process is spawned, and with `undefined` for the lister process (the gateway's
 * own lists); only with `processes: 'per-principal'`. What it throws is logged (`logger.error`), never shown: the
 * caller gets -32603 `Upstream "<name>" could not be started: its env function failed`.
 */
export type UpstreamEnv =
  | Readonly<Record<string, string>>
  | ((ctx: RequestContext | undefined) => Record<string, string> | Promise<Record<string, string>>);

/** The options of an upstream run as a local program speaking MCP over its stdin and stdout. */
export interface StdioUpstreamOptions {
  /** The program to run (no shell: looked up on `PATH`, argv as given), e.g. `'npx'` or `process.execPath`. */
  command?: string;
  /** Its arguments. Defaults to none. */
  args?: readonly string[];
  /**
   * Its environment variables (names of letters, digits and `_`, not starting with a digit). Their values never
   * appear in logs, errors or `status()`. A function `(ctx) => env` needs `processes: 'per-principal'`.
   */
  env?: UpstreamEnv;
  /** Its working directory; must exist when the upstream is mounted. Defaults to the router's. */
  cwd?: string;
  /**
   * `'shared'`: one process for every caller. `'per-principal'`: one per authenticated subject (`ctx.auth.subject`),
   * spawned on its first call with `env(ctx)`, so a caller's credentials reach only its own process; lists come from
   * one more process, the lister, spawned with `env(undefined)`. Defaults to `'shared'`.
   */
  processes?: 'shared' | 'per-principal';
  /**
   * With `'per-principal'`: the most caller processes alive at once, one still exiting included (the least recently
   * used idle one is ended to make room, and the next starts once it has exited). Defaults to 10.
   */
  maxProcesses?: number;
  /** With `'per-principal'`: a caller's process unused this long is ended, in ms. Defaults to 10 minutes. */
  idleTimeoutMs?: number;
  /**
   * When the (shared or lister) process starts: `'mounted'` (at once) or `'first-use'` (at the router's first MCP
   * request). Defaults to `'mounted'` for shared processes, `'first-use'` for per-principal ones.
   */
  start?: 'mounted' | 'first-use';
}

/** The stdio options after checking: internal. */
export interface ResolvedStdio {
  readonly command: string;
  readonly args: readonly string[];
  readonly env: UpstreamEnv | undefined;
  readonly cwd: string | undefined;
  readonly processes: 'shared' | 'per-principal';
  readonly maxProcesses: number;
  readonly idleTimeoutMs: number;
  readonly start: 'mounted' | 'first-use';
}

/** The keys that belong to a stdio upstream: with `url`, each is refused. */
export const STDIO_KEYS: { [K in keyof Required<StdioUpstreamOptions>]: true } = {
  command: true,
  args: true,
  env: true,
  cwd: true,
  processes: true,
  maxProcesses: true,
  idleTimeoutMs: true,
  start: true,
};

const ENV_EXPECTED = 'an object of name → string, or a function (ctx) => env';

/** What is wrong with an environment (never quoting a value: it may be a secret), or undefined when nothing is. */
function envFault(
  env: unknown,
): { readonly variable?: string; readonly expected: string; readonly got: unknown } | undefined {
  if (!isObject(env)) return { expected: ENV_EXPECTED, got: typeof env };
  for (const [name, value] of Object.entries(env)) {
    if (!ENV_NAME.test(name))
      return { expected: 'variable names of letters, digits and _, not starting with a digit', got: name.slice(0, 64) };
    if (typeof value !== 'string') return { variable: name, expected: 'a string', got: typeof value };
  }
  return undefined;
}

/**
 * What `env` gives for a spawn (`ctx` undefined for the shared or lister process), checked as the options are.
 *
 * @param item - the upstream, as messages name it (`upstream 'fs'`)
 * @throws {Error} naming the variable (never its value) when a function returns a bad environment
 */
export async function environmentFor(
  stdio: ResolvedStdio,
  ctx: RequestContext | undefined,
  item: string,
): Promise<Record<string, string>> {
  const env = typeof stdio.env === 'function' ? await stdio.env(ctx) : stdio.env;
  if (env === undefined) return {};
  const fault = envFault(env);
  if (fault !== undefined) {
    const where = fault.variable === undefined ? 'env' : `env.${fault.variable}`;
    throw new Error(
      `mcpRouter: ${item}: the result of '${where}' must be ${fault.expected}, got ${JSON.stringify(fault.got)}`,
    );
  }
  return { ...env };
}

/** `env`: an object checked now, or (per principal only) a function whose results are checked at each spawn. */
function resolveEnv(
  read: OptionReader<StdioUpstreamOptions>,
  processes: ResolvedStdio['processes'],
): UpstreamEnv | undefined {
  const env = read.raw('env');
  if (env === undefined) return undefined;
  if (typeof env === 'function') {
    // A shared process has no caller to ask for: its environment is fixed at mount.
    if (processes !== 'per-principal')
      throw read.invalid(
        'env',
        "an object with processes: 'shared' (a function needs processes: 'per-principal', one process per caller)",
        'function',
      );
    return env;
  }
  const fault = envFault(env);
  if (fault === undefined) return Object.freeze({ ...env });
  if (fault.variable === undefined) throw read.invalid('env', fault.expected, fault.got);
  const variables = read.nested('env') as OptionReader<Record<string, string>>;
  throw variables.invalid(fault.variable, fault.expected, fault.got);
}

/** `cwd`: a directory that exists now. */
function resolveCwd(read: OptionReader<StdioUpstreamOptions>): string | undefined {
  const cwd = read.raw('cwd');
  if (cwd === undefined) return undefined;
  if (typeof cwd !== 'string' || cwd === '') throw read.invalid('cwd', 'a directory path');
  let isDirectory = false;
  try {
    isDirectory = statSync(cwd).isDirectory();
  } catch {
    isDirectory = false;
  }
  if (!isDirectory) throw read.invalid('cwd', 'an existing directory');
  return cwd;
}

const isArgument = (arg: unknown): arg is string => typeof arg === 'string' && !arg.includes('\0');

/**
 * The stdio options of an upstream, read from `read` (its options, `command` among them, unknown keys refused).
 *
 * @throws {McpConfigError} for a bad value, naming the option; for a `cwd` that is not a directory; for a
 *   per-principal option (`maxProcesses`, `idleTimeoutMs`) with a shared process
 */
export function resolveStdio(read: OptionReader<StdioUpstreamOptions>): ResolvedStdio {
  const command = read.raw('command');
  if (typeof command !== 'string' || command.trim() === '' || command.includes('\0'))
    throw read.invalid('command', 'a program name or path');
  const args = read.array('args', isArgument, 'an array of strings') ?? Object.freeze([]);
  const processes = read.oneOf('processes', ['shared', 'per-principal'] as const, 'shared');
  const env = resolveEnv(read, processes);
  const cwd = resolveCwd(read);
  const maxProcesses = read.positiveInteger('maxProcesses', DEFAULT_MAX_PROCESSES);
  const idleTimeoutMs = read.milliseconds('idleTimeoutMs', DEFAULT_IDLE_TIMEOUT_MS);
  const start = read.oneOf(
    'start',
    ['mounted', 'first-use'] as const,
    processes === 'shared' ? 'mounted' : 'first-use',
  );
  if (processes === 'shared')
    for (const perPrincipal of ['maxProcesses', 'idleTimeoutMs'] as const)
      if (read.raw(perPrincipal) !== undefined)
        throw read.invalid(
          perPrincipal,
          "absent with processes: 'shared' (it bounds the processes of 'per-principal')",
        );
  return Object.freeze({ command, args, env, cwd, processes, maxProcesses, idleTimeoutMs, start });
}
