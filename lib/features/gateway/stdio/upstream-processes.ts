// A stdio upstream's processes for a mount: the shared (or lister) process, supervised, and the per-principal pool.

import type { McpLogger } from '../../../core/logger';
import type { RequestContext } from '../../../core/registry/request-context';
import { ProcessPool } from './process-pool';
import { createStdioUpstreamClient, type StdioProgram } from './stdio-client';
import { environmentFor, type ResolvedStdio } from './stdio-options';
import { RestartSupervisor } from './restart-supervisor';
import type { UpstreamClient, UpstreamTransport } from '../shared/upstream-client';
import type { ResolvedUpstream } from '../mount/upstream-options';
import { runOperatorFunction } from '../shared/upstream-wire';

/** Why a process was not started when `env` failed: what it threw stays in the router's log (a vault's error may hold a secret). */
const ENV_FAILED = 'could not be started: its env function failed';

/** What the mount lends: its logger and identity, and what to do when the shared process may restart. */
export interface StdioEnvironment {
  readonly logger: McpLogger;
  readonly clientInfo: { readonly name: string; readonly version: string };
  /** The capabilities declared in initialize: those the gateway relays to its callers. */
  readonly capabilities: Record<string, unknown>;
  readonly onExited: () => void;
  readonly onRestartDue: () => void;
}

/**
 * The processes of one stdio upstream: the shared process (or, per principal, the lister) as the transport's client,
 * for the gateway's lists and notifications and the shared calls; per principal, the pool of its callers' processes.
 * Starts nothing yet: the shared process spawns on the first list request, each caller's on its first call. The
 * shared (lister) process gets `env` as given, or `env(undefined)`; a caller's gets `env(ctx)`.
 */
export function stdioProcesses(
  options: ResolvedUpstream,
  stdio: ResolvedStdio,
  env: StdioEnvironment,
): UpstreamTransport {
  const label = options.name;

  /**
   * The environment of a spawn. What a failing `env` threw goes to `logger.error` only, as a handler's unexpected
   * error does: callers, `status()` and warnings get a fixed message naming the upstream.
   */
  function environment(ctx: RequestContext | undefined): Promise<Record<string, string>> {
    return runOperatorFunction(label, 'env', ENV_FAILED, env.logger, () =>
      environmentFor(stdio, ctx, `upstream '${label}'`),
    );
  }

  const base = { command: stdio.command, args: stdio.args, ...(stdio.cwd === undefined ? {} : { cwd: stdio.cwd }) };

  /** The client of one process of the program, once its environment is known (a function env is awaited first). */
  function startClient(program: StdioProgram | Promise<StdioProgram>, onExit: (why: string) => void): UpstreamClient {
    let client: UpstreamClient | undefined;
    const made = Promise.resolve(program).then(
      (resolved) => {
        const started = createStdioUpstreamClient({
          program: resolved,
          label,
          timeoutMs: options.timeoutMs,
          clientInfo: env.clientInfo,
          capabilities: env.capabilities,
          logger: env.logger,
          onExit,
          roots: options.roots,
        });
        client = started;
        return started;
      },
      (err: unknown) => {
        // The operator's env function failed (logged by environment()): the process is not started, and the
        // supervisor waits before the next try.
        setImmediate(() => onExit(ENV_FAILED));
        throw err;
      },
    );
    made.catch(() => undefined);
    return deferredClient(made, () => client);
  }

  const shared = new RestartSupervisor({
    label,
    logger: env.logger,
    onExited: env.onExited,
    onRestartDue: env.onRestartDue,
    start: (onExit) =>
      startClient(
        typeof stdio.env === 'function'
          ? environment(undefined).then((vars) => ({ ...base, env: vars }))
          : { ...base, ...(stdio.env === undefined ? {} : { env: { ...stdio.env } }) },
        onExit,
      ),
  });
  const pool =
    stdio.processes === 'per-principal'
      ? new ProcessPool({
          label,
          maxProcesses: stdio.maxProcesses,
          idleTimeoutMs: stdio.idleTimeoutMs,
          start: async (ctx: RequestContext) => {
            const vars = await environment(ctx);
            return new RestartSupervisor({
              label,
              logger: env.logger,
              start: (onExit) => startClient({ ...base, env: vars }, onExit),
            });
          },
        })
      : undefined;
  return {
    client: shared,
    pool,
    close: async () => {
      await Promise.all([shared.close(), pool?.close()]);
    },
  };
}

/** An UpstreamClient for one that is still being made (its env awaited): requests wait for it; a failure to make it is theirs. */
function deferredClient(made: Promise<UpstreamClient>, now: () => UpstreamClient | undefined): UpstreamClient {
  return {
    request: async (method, params, requestOptions) => (await made).request(method, params, requestOptions),
    notify: async (method, params) => (await made).notify(method, params),
    listen(listenOptions) {
      const listening = made.then((client) => client.listen(listenOptions));
      listening.catch(() => undefined);
      return {
        update: (uris) =>
          void listening.then(
            (listener) => listener.update(uris),
            () => undefined,
          ),
        close: () =>
          void listening.then(
            (listener) => listener.close(),
            () => undefined,
          ),
      };
    },
    close: async () => {
      const client = await made.catch(() => undefined);
      await client?.close();
    },
    get era() {
      return now()?.era;
    },
    get protocolVersion() {
      return now()?.protocolVersion;
    },
    get sessionId() {
      return undefined;
    },
    get capabilities() {
      return now()?.capabilities;
    },
  };
}
