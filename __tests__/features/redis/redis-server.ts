// A real redis-server for the tests: started on a free port in a temporary directory, stopped (and its files removed) after.

import type { ChildProcess } from 'node:child_process';
import { spawnGroup } from '../../helpers/child';
import { mkdtempSync, rmSync } from 'node:fs';
import { freePort } from '../../helpers/ports';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RedisConnection } from '../../../lib/features/redis/connection';

export interface RedisServer {
  readonly port: number;
  readonly url: string;
  /** Stops the server (SIGKILL when `abrupt`), keeping its port for {@link RedisServer.start}. */
  stop(abrupt?: boolean): Promise<void>;
  /** Starts it again on the same port (after stop()). */
  start(): Promise<void>;
  /** Stops it and removes its directory. */
  close(): Promise<void>;
}

/** Resolves once redis-server says it is ready (read from its output as it comes); rejects if it exits first. */
function waitForPort(port: number, child: ChildProcess, output: () => string): Promise<void> {
  return new Promise((resolve, reject) => {
    const done = (error?: Error): void => {
      clearTimeout(deadline);
      child.stdout?.off('data', check);
      child.off('exit', exited);
      if (error) reject(error);
      else resolve();
    };
    const check = (): void => {
      if (output().includes('Ready to accept connections')) done();
    };
    const exited = (): void => done(new Error(`redis-server exited with ${child.exitCode}: ${output()}`));
    const deadline = setTimeout(
      () => done(new Error(`redis-server did not start on port ${port}: ${output()}`)),
      10_000,
    );
    // After the listener that appends to the output.
    child.stdout?.on('data', check);
    child.once('exit', exited);
    check();
  });
}

/**
 * Starts `redis-server` (Debian's package; `.ci/run` installs it when missing) with no persistence, on 127.0.0.1.
 *
 * @example
 * ```ts
 * let redis: RedisServer;
 * beforeAll(async () => { redis = await startRedis(); });
 * afterAll(() => redis?.close());
 * ```
 */
export async function startRedis(): Promise<RedisServer> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'mcp-redis-'));
  let child: ChildProcess | undefined;
  let log = '';
  const start = async (): Promise<void> => {
    if (child !== undefined && child.exitCode === null) return;
    log = '';
    const started = spawnGroup(
      'redis-server',
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'no',
        '--dir',
        dir,
        '--protected-mode',
        'no',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    started.stdout?.on('data', (chunk: Buffer) => (log += chunk.toString()));
    started.stderr?.on('data', (chunk: Buffer) => (log += chunk.toString()));
    child = started;
    await waitForPort(port, started, () => log);
  };
  const stop = async (abrupt = false): Promise<void> => {
    const running = child;
    child = undefined;
    if (running === undefined || running.exitCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill(abrupt ? 'SIGKILL' : 'SIGTERM');
    await exited;
  };
  await start();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    stop,
    start,
    close: async () => {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A test file's Redis: its own redis-server, connections closed (and the server started again if a test stopped it) after each test. */
export interface RedisFixture {
  readonly url: string;
  readonly port: number;
  stop(abrupt?: boolean): Promise<void>;
  start(): Promise<void>;
  /** A connection to it under `prefix`, closed after the test. */
  connect(options?: { readonly prefix?: string; readonly commandTimeoutMs?: number }): RedisConnection;
  /** Closes `part` (a store, a bus) after the test, before its connections. */
  closeAfter<T extends { close(): Promise<void> | void }>(part: T): T;
}

/**
 * Starts a redis-server for the test file (beforeAll) and stops it after (afterAll); after each test, closes what
 * the test made, then its connections, and starts the server again if the test stopped it.
 *
 * @example
 * ```ts
 * const redis = useRedis();
 * it('…', async () => { const connection = redis.connect({ prefix: 'test:' }); … });
 * ```
 */
export function useRedis(): RedisFixture {
  let server: RedisServer | undefined;
  const connections: RedisConnection[] = [];
  const parts: Array<{ close(): Promise<void> | void }> = [];
  const running = (): RedisServer => {
    if (server === undefined) throw new Error('useRedis: the server starts in beforeAll; use it inside a test');
    return server;
  };
  beforeAll(async () => {
    server = await startRedis();
  });
  afterEach(async () => {
    await Promise.all(parts.splice(0).map(async (part) => part.close()));
    await Promise.all(connections.splice(0).map((connection) => connection.close()));
    await server?.start();
  });
  afterAll(() => server?.close());
  return {
    get url() {
      return running().url;
    },
    get port() {
      return running().port;
    },
    stop: (abrupt) => running().stop(abrupt),
    start: () => running().start(),
    connect: (options = {}) => {
      const connection = new RedisConnection({ url: running().url, ...definedOptions(options) });
      connections.push(connection);
      return connection;
    },
    closeAfter: (part) => {
      parts.push(part);
      return part;
    },
  };
}

function definedOptions(options: { readonly prefix?: string; readonly commandTimeoutMs?: number }): {
  prefix?: string;
  commandTimeoutMs?: number;
} {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined));
}
