// Child processes of the harness: started pinned to one CPU, spoken to over IPC, ended with the harness.

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { compiled } from './build';

/** Which CPU the servers and the load generator run on, or undefined when they cannot be pinned. */
export interface Pinning {
  readonly serverCpu: number;
  readonly loadCpu: number;
}

/** Servers on CPU 0 and the load generator on CPU 1, when `taskset` exists and there are two CPUs. */
export function detectPinning(): Pinning | undefined {
  if (process.env.BENCH_NO_PIN === '1' || availableParallelism() < 2) return undefined;
  return spawnSync('taskset', ['--version']).status === 0 ? { serverCpu: 0, loadCpu: 1 } : undefined;
}

/** Every reply carries the `seq` of the message it answers; a failed task answers with `error`. */
type Reply = { readonly seq: number; readonly error?: string };

/** A running child: `ask` sends one message and resolves with the reply to it. */
export class Child {
  private seq = 0;
  private readonly waiting = new Map<number, { resolve(reply: unknown): void; reject(err: Error): void }>();

  private constructor(
    readonly name: string,
    private readonly proc: ChildProcess,
  ) {
    proc.on('message', (message: Reply) => {
      const waiter = this.waiting.get(message.seq);
      this.waiting.delete(message.seq);
      if (message.error !== undefined) waiter?.reject(new Error(`${name}: ${message.error}`));
      else waiter?.resolve(message);
    });
    proc.once('exit', (code) => {
      for (const waiter of this.waiting.values()) waiter.reject(new Error(`${name} exited (code ${String(code)})`));
      this.waiting.clear();
    });
  }

  /**
   * Starts `node --expose-gc <script, compiled> ...args` (under `taskset -c <cpu>` when pinned) and waits for
   * its first message, `{ kind: 'ready', ... }`. The run must have called `buildForBench()` first.
   *
   * @param script - the TypeScript source, relative to bench/
   * @param nodeArgs - extra Node flags (`--cpu-prof` …)
   */
  static async start<Ready>(
    name: string,
    script: string,
    args: readonly string[],
    cpu: number | undefined,
    nodeArgs: readonly string[] = [],
  ): Promise<{ child: Child; ready: Ready }> {
    const command = [process.execPath, '--expose-gc', ...nodeArgs, compiled(script), ...args];
    if (cpu !== undefined) command.unshift('taskset', '-c', String(cpu));
    const [file, ...rest] = command as [string, ...string[]];
    const proc = spawn(file, rest, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    const child = new Child(name, proc);
    const ready = await new Promise<Ready>((resolve, reject) => {
      proc.once('message', (message: Ready) => resolve(message));
      proc.once('exit', (code) => reject(new Error(`${name} exited before it was ready (code ${String(code)})`)));
      proc.once('error', reject);
    });
    return { child, ready };
  }

  /** Sends `message` and resolves with the child's reply. */
  ask<T>(message: object): Promise<T> {
    const seq = ++this.seq;
    return new Promise<T>((resolve, reject) => {
      this.waiting.set(seq, { resolve: resolve as (reply: unknown) => void, reject });
      this.proc.send({ ...message, seq });
    });
  }

  /** Disconnects (the child exits on disconnect) and waits for the exit, so profiles are written. */
  async stop(): Promise<void> {
    if (this.proc.exitCode !== null || this.proc.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => this.proc.once('exit', () => resolve()));
    this.proc.disconnect();
    const timer = setTimeout(() => this.proc.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  }
}
