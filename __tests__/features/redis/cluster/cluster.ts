// Two router instances (separate processes) on one Redis, behind a plain round-robin HTTP proxy with no stickiness, recording which instance got what.

import type { ChildProcess } from 'node:child_process';
import { spawnGroup } from '../../../helpers/child';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { freePort } from '../../../helpers/ports';
import { Signal } from '../../../helpers/events';
import { roundRobinProxy } from '../../../../demo/proxy';

export interface Routed {
  readonly instance: string;
  readonly http: string;
  /** The JSON-RPC method (or 'response' for a posted answer), when the body is one message. */
  readonly rpc: string | undefined;
  /** The instance's answer status, once its answer started (a GET stream: once the instance holds it open). */
  answered?: number;
}

export interface Instance {
  readonly name: string;
  readonly port: number;
  /** What it printed on stdout so far. */
  output(): string;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

export interface Cluster {
  /** The proxy's MCP endpoint. */
  readonly url: string;
  readonly instances: readonly Instance[];
  /** Every request the proxy forwarded, in order. */
  readonly routed: Routed[];
  /** Told at each entry of `routed`, and when its answer starts. */
  readonly forwarded: Signal;
  /** Waits until an instance printed `text`. */
  waitForOutput(text: string, ms?: number): Promise<string>;
  close(): Promise<void>;
}

const INSTANCE = join(__dirname, 'instance.ts');

/** Starts instance `name`, telling `printed` at each chunk of its output and at its exit. */
async function startInstance(name: string, redisUrl: string, printed: Signal, maxStreams?: number): Promise<Instance> {
  const port = await freePort();
  // The redis4 project runs the instances on Express 4 too (EXPRESS_MAJOR is its jest global).
  const express4 =
    (globalThis as { EXPRESS_MAJOR?: number }).EXPRESS_MAJOR === 4
      ? ['--require', join(__dirname, 'express4.cjs')]
      : [];
  // One process (tsx as a loader, not its CLI, which would start another): the hook applies to the instance itself.
  const child: ChildProcess = spawnGroup(
    process.execPath,
    [...express4, '--import', 'tsx', INSTANCE, String(port), redisUrl, name],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: maxStreams === undefined ? process.env : { ...process.env, MCP_TEST_MAX_STREAMS: String(maxStreams) },
    },
  );
  let out = '';
  const print = (chunk: Buffer): void => {
    out += chunk.toString();
    printed.notify();
  };
  child.stdout?.on('data', print);
  child.stderr?.on('data', print);
  child.once('exit', printed.notify);
  await printed
    .when(() => out.includes(`${name} ready`) || child.exitCode !== null, `instance ${name}`, 20_000)
    .catch(() => undefined);
  if (!out.includes(`${name} ready`)) throw new Error(`instance ${name} did not start: ${out}`);
  return {
    name,
    port,
    output: () => out,
    kill: async (signal = 'SIGTERM') => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill(signal);
      await exited;
    },
  };
}

/** The method of a JSON-RPC body, for the record (a batch or non-JSON body: undefined). */
function rpcOf(body: Buffer): string | undefined {
  try {
    const message = JSON.parse(body.toString()) as Record<string, unknown>;
    return typeof message.method === 'string'
      ? message.method
      : 'result' in message || 'error' in message
        ? 'response'
        : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Starts instances A and B on `redisUrl` and a proxy that sends each request to the next instance in turn (A, B,
 * A, …), streaming both ways (SSE included). An instance that is down gets the request anyway: the client sees
 * the proxy's 502, as behind a real balancer without health checks.
 */
export async function startCluster(redisUrl: string, options: { maxStreams?: number } = {}): Promise<Cluster> {
  const printed = new Signal();
  const instances = await Promise.all(
    ['A', 'B'].map((name) => startInstance(name, redisUrl, printed, options.maxStreams)),
  );
  const routed: Routed[] = [];
  const forwarded = new Signal();
  const entries = new WeakMap<object, Routed>();
  const proxy: Server = roundRobinProxy(
    instances,
    (request) => {
      const { target, method, body } = request;
      const entry: Routed = {
        instance: instances[target]!.name,
        http: method,
        rpc: body.length > 0 ? rpcOf(body) : undefined,
      };
      entries.set(request, entry);
      routed.push(entry);
      forwarded.notify();
    },
    (request, status) => {
      const entry = entries.get(request);
      entries.delete(request);
      if (entry !== undefined) entry.answered = status;
      forwarded.notify();
    },
  );
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const { port } = proxy.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    instances,
    routed,
    forwarded,
    waitForOutput: async (text, ms = 10_000) => {
      const printer = (): Instance | undefined => instances.find((instance) => instance.output().includes(text));
      await printed.when(() => printer() !== undefined, `'${text}'`, ms).catch(() => undefined);
      const found = printer();
      if (found !== undefined) return found.name;
      throw new Error(
        `no instance printed '${text}': ${instances.map((instance) => `${instance.name}: ${instance.output()}`).join('\n')}`,
      );
    },
    close: async () => {
      proxy.closeAllConnections();
      await new Promise((resolve) => proxy.close(resolve));
      await Promise.all(instances.map((instance) => instance.kill()));
    },
  };
}
