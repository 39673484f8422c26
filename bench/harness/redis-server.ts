// A redis-server for the Redis scenario: on a free port, in a temporary directory, pinned like the servers; the
// harness reads INFO and DBSIZE from it. A minimal copy of the tests' __tests__/features/redis/redis-server.ts (bench/
// code does not import from __tests__).

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from 'redis';

/** Why the Redis scenario cannot run here (no `redis-server` on the PATH), or undefined when it can. */
export function redisServerMissing(): string | undefined {
  const probe = spawnSync('redis-server', ['--version'], { encoding: 'utf8' });
  return probe.status === 0 ? undefined : 'redis-server is not installed (Debian package `redis-server`)';
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

/** A running redis-server and one client of the harness's own (never the routers'). */
export interface BenchRedis {
  readonly url: string;
  /** One raw command, e.g. `['INFO', 'memory']`. */
  command(args: readonly string[]): Promise<unknown>;
  /** A field of `INFO <section>` as a number (`used_memory`, `used_cpu_user` …). */
  info(section: string, field: string): Promise<number>;
  /** Every key, by SCAN. */
  keys(): Promise<string[]>;
  /** Closes the client and kills the server (bounded: SIGKILL after 5 s), removes its directory. */
  close(): Promise<void>;
}

/**
 * Starts `redis-server` with no persistence on 127.0.0.1, under `taskset -c <cpu>` when `cpu` is given; rejects
 * within 10 s when it does not start (and kills it).
 */
export async function startBenchRedis(cpu: number | undefined): Promise<BenchRedis> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'mcp-bench-redis-'));
  const args = [
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
  ];
  const command =
    cpu === undefined ? ['redis-server', ...args] : ['taskset', '-c', String(cpu), 'redis-server', ...args];
  const child: ChildProcess = spawn(command[0] as string, command.slice(1), { stdio: ['ignore', 'pipe', 'pipe'] });
  // Should the harness exit early or be stopped by a signal, the server must not outlive it (the routers exit
  // by themselves when their IPC channel closes; redis-server does not know its parent).
  const killOnExit = (): void => void child.kill('SIGKILL');
  const killOnSignal = (signal: NodeJS.Signals): void => {
    killOnExit();
    removeHooks();
    process.kill(process.pid, signal);
  };
  const removeHooks = (): void => {
    process.removeListener('exit', killOnExit);
    process.removeListener('SIGINT', killOnSignal);
    process.removeListener('SIGTERM', killOnSignal);
  };
  process.once('exit', killOnExit);
  process.once('SIGINT', killOnSignal);
  process.once('SIGTERM', killOnSignal);
  let log = '';
  child.stdout?.on('data', (chunk: Buffer) => (log += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (log += chunk.toString()));
  const stop = async (): Promise<void> => {
    removeHooks();
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const end = Date.now() + 10_000;
  while (!log.includes('Ready to accept connections')) {
    if (child.exitCode !== null || Date.now() > end) {
      await stop();
      throw new Error(`redis-server did not start on port ${port}: ${log}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  const url = `redis://127.0.0.1:${port}`;
  const client = createClient({ url });
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (err) {
    await stop();
    throw err;
  }
  const send = (args: readonly string[]): Promise<unknown> => client.sendCommand([...args]);
  return {
    url,
    command: send,
    info: async (section, field) => {
      const text = String(await send(['INFO', section]));
      const line = text.split('\r\n').find((entry) => entry.startsWith(`${field}:`));
      if (line === undefined) throw new Error(`INFO ${section} has no ${field}`);
      return Number(line.slice(field.length + 1));
    },
    keys: async () => {
      const found: string[] = [];
      let cursor = '0';
      do {
        const [next, batch] = (await send(['SCAN', cursor, 'COUNT', '1000'])) as [string, string[]];
        cursor = next;
        found.push(...batch);
      } while (cursor !== '0');
      return found;
    },
    close: async () => {
      await client.close().catch(() => client.destroy());
      await stop();
    },
  };
}
