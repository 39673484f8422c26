// A real redis-server for the tests: started on a free port in a temporary directory, stopped (and its files removed) after.

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

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

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function waitForPort(port: number, child: ChildProcess, output: () => string): Promise<void> {
  const end = Date.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`redis-server exited with ${child.exitCode}: ${output()}`);
    if (output().includes('Ready to accept connections')) return;
    if (Date.now() > end) throw new Error(`redis-server did not start on port ${port}: ${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/**
 * Starts `redis-server` (Debian's package; `.ci/run` installs it when missing) with no persistence, on 127.0.0.1.
 *
 * @example
 * ```ts
 * let redis: RedisServer;
 * beforeAll(async () => { redis = await startRedis(); });
 * afterAll(() => redis.close());
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
    const started = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--protected-mode', 'no'], { stdio: ['ignore', 'pipe', 'pipe'] });
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
