// The stdio options of mcp.upstream() (command, args, env, cwd, processes…): checked and defaulted once, at registration.

import { statSync } from 'node:fs';
import { invalidOption, isPositiveInteger, McpConfigError } from '../../../options/config-error';
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

function checkEnvObject(env: unknown, option: string): void {
  if (typeof env !== 'object' || env === null || Array.isArray(env))
    throw new McpConfigError(
      'ERR_MCP_INVALID_OPTION',
      `option '${option}' must be an object of name → string, or a function (ctx) => env`,
    );
  for (const [name, value] of Object.entries(env)) {
    // The value is never quoted: it may be a secret.
    if (!ENV_NAME.test(name))
      throw new McpConfigError(
        'ERR_MCP_INVALID_OPTION',
        `option '${option}' has an invalid variable name '${name.slice(0, 64)}': use letters, digits and _, not starting with a digit`,
      );
    if (typeof value !== 'string')
      throw new McpConfigError('ERR_MCP_INVALID_OPTION', `option '${option}.${name}' must be a string`);
  }
}

/**
 * What `env` gives for a spawn (`ctx` undefined for the shared or lister process), checked as the options are.
 *
 * @throws {Error} naming the variable (never its value) when a function returns a bad environment
 */
export async function environmentFor(
  stdio: ResolvedStdio,
  ctx: RequestContext | undefined,
  label: string,
): Promise<Record<string, string>> {
  const env = typeof stdio.env === 'function' ? await stdio.env(ctx) : stdio.env;
  if (env === undefined) return {};
  try {
    checkEnvObject(env, `${label}.env`);
  } catch (err) {
    throw new Error((err as Error).message.replace(/^mcpRouter: option/, `mcpRouter: the result of`));
  }
  return { ...env };
}

/**
 * @param options - the upstream's options, `command` among them
 * @param label - how messages name the upstream (`upstream 'fs'`)
 * @throws {McpConfigError} for a bad value, naming `<label>.<key>`; for a `cwd` that is not a directory
 */
export function resolveStdio(options: StdioUpstreamOptions, label: string): ResolvedStdio {
  const {
    command,
    args = [],
    env,
    cwd,
    processes = 'shared',
    maxProcesses = DEFAULT_MAX_PROCESSES,
    idleTimeoutMs = DEFAULT_IDLE_TIMEOUT_MS,
  } = options;
  if (typeof command !== 'string' || command.trim() === '' || command.includes('\0'))
    throw invalidOption(`${label}.command`, 'a program name or path', command);
  if (!Array.isArray(args) || !args.every((arg) => typeof arg === 'string' && !arg.includes('\0')))
    throw invalidOption(`${label}.args`, 'an array of strings', args);
  if (processes !== 'shared' && processes !== 'per-principal')
    throw invalidOption(`${label}.processes`, "'shared' or 'per-principal'", processes);
  if (typeof env === 'function') {
    // A shared process has no caller to ask for: its environment is fixed at mount.
    if (processes !== 'per-principal')
      throw new McpConfigError(
        'ERR_MCP_INVALID_OPTION',
        `option '${label}.env' may be a function only with processes: 'per-principal' (a shared process serves every caller)`,
      );
  } else if (env !== undefined) {
    checkEnvObject(env, `${label}.env`);
  }
  if (cwd !== undefined) {
    if (typeof cwd !== 'string' || cwd === '') throw invalidOption(`${label}.cwd`, 'a directory path', cwd);
    let isDirectory = false;
    try {
      isDirectory = statSync(cwd).isDirectory();
    } catch {
      isDirectory = false;
    }
    if (!isDirectory)
      throw new McpConfigError(
        'ERR_MCP_INVALID_OPTION',
        `option '${label}.cwd' must be an existing directory, got ${JSON.stringify(cwd)}`,
      );
  }
  if (!isPositiveInteger(maxProcesses))
    throw invalidOption(`${label}.maxProcesses`, 'a positive integer', maxProcesses);
  if (!isPositiveInteger(idleTimeoutMs))
    throw invalidOption(`${label}.idleTimeoutMs`, 'a positive number of milliseconds', idleTimeoutMs);
  const start = options.start ?? (processes === 'shared' ? 'mounted' : 'first-use');
  if (start !== 'mounted' && start !== 'first-use')
    throw invalidOption(`${label}.start`, "'mounted' or 'first-use'", start);
  if (processes === 'shared' && (options.maxProcesses !== undefined || options.idleTimeoutMs !== undefined)) {
    throw new McpConfigError(
      'ERR_MCP_INVALID_OPTION',
      `options '${label}.maxProcesses' and '${label}.idleTimeoutMs' need processes: 'per-principal'`,
    );
  }
  return Object.freeze({
    command,
    args: Object.freeze([...args]),
    env: typeof env === 'object' ? Object.freeze({ ...env }) : env,
    cwd,
    processes,
    maxProcesses,
    idleTimeoutMs,
    start,
  });
}
