// One Redis connection for a router's shared store: raw commands under a time limit, a key prefix, a lazily made subscriber connection, a bounded close.

import type { RedisClientType, RedisClusterType, RedisSentinelType } from 'redis';
import { nodeRedis } from './peers';
import { isObject } from '../../core/jsonrpc/types';
import { StoreUnavailableError } from '../../edge/store/shared-store';
import type { OptionKeys } from '../../options/config-error';
import { OptionReader } from '../../options/option-reader';

/** A node-redis client the caller already has: `createClient()`, `createCluster()` or `createSentinel()` (connected or not). */
export type RedisClientLike =
  | RedisClientType<any, any, any, any, any>
  | RedisClusterType<any, any, any, any, any>
  | RedisSentinelType<any, any, any, any, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** A message listener of a pub/sub channel. */
export type ChannelListener = (message: string) => void;

/**
 * A channel message as the JSON object it should be, or undefined when it is not one: anything may publish on a
 * channel, and what arrives must never throw into the subscriber connection's read loop.
 */
export function parseChannelPayload(text: string): Record<string, unknown> | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  return isObject(value) ? value : undefined;
}

/** Default `commandTimeoutMs`: the most one command may take before the request gets a 503. */
export const DEFAULT_COMMAND_TIMEOUT_MS = 2_000;
/** Default `prefix` of every key and channel. */
export const DEFAULT_PREFIX = 'mcp:';
/** The most `close()` waits for Redis before it drops the connections. */
const CLOSE_TIMEOUT_MS = 2_000;

/** How the store reaches Redis. */
export interface RedisConnectionOptions {
  /** `redis://[user:password@]host:port[/db]`, or `rediss://` for TLS. */
  readonly url?: string;
  /**
   * A client you already have (its TLS, ACL user, Sentinel or Cluster settings are used as they are). The store
   * bounds every command by `commandTimeoutMs` itself: `createClient({ commandOptions: { timeout: 0 } })` turns off
   * node-redis 6's own per-command timer (5 s by default), a second timer on every command.
   */
  readonly client?: RedisClientLike;
  /** Prefix of every key and channel; instances of one router share it, other routers must not. Defaults to `mcp:`. */
  readonly prefix?: string;
  /** The most one command may take, in ms; then the request gets a 503. Defaults to 2,000. */
  readonly commandTimeoutMs?: number;
}

const KNOWN_OPTIONS: OptionKeys<RedisConnectionOptions> = {
  url: true,
  client: true,
  prefix: true,
  commandTimeoutMs: true,
};

/** The `client` option: what the store calls of a node-redis client, checked before it is called. */
function checkClient(read: OptionReader<RedisConnectionOptions>): RedisClientLike | undefined {
  const client = read.raw('client');
  const calls = ['sendCommand', 'duplicate', 'on'] as const;
  if (
    client !== undefined &&
    (typeof client !== 'object' ||
      client === null ||
      calls.some((call) => typeof client[call as keyof object] !== 'function'))
  )
    throw read.invalid(
      'client',
      'a node-redis client: createClient(), createCluster() or createSentinel()',
      typeof client,
    );
  return client;
}

type Raw = {
  sendCommand: (...args: unknown[]) => Promise<unknown>;
  duplicate: () => Raw;
  connect: () => Promise<unknown>;
  isOpen: boolean;
  subscribe: (channel: string, listener: ChannelListener) => Promise<void>;
  unsubscribe: (channel: string, listener?: ChannelListener) => Promise<void>;
  close?: () => Promise<void>;
  quit?: () => Promise<void>;
  destroy?: () => void;
  disconnect?: () => Promise<void>;
  on: (event: string, listener: (...args: unknown[]) => void) => unknown;
};

/**
 * A router's Redis: every command goes through {@link RedisConnection.send} (a time limit, a
 * {@link StoreUnavailableError} when Redis cannot answer), every key through {@link RedisConnection.key}.
 */
export class RedisConnection {
  readonly prefix: string;
  /** A Redis Cluster: one command (one script) may only touch keys of one slot; a single server has no such limit. */
  readonly isCluster: boolean;
  private readonly raw: Raw;
  private readonly owned: boolean;
  private readonly timeoutMs: number;
  private connecting: Promise<unknown> | undefined;
  private subscriber: Raw | undefined;
  private subscriberReady: Promise<unknown> | undefined;
  private closed = false;

  /** @throws {McpConfigError} for an unknown option or a bad value, named under `redisStore` */
  constructor(options: RedisConnectionOptions) {
    const read = OptionReader.of(options, 'redisStore', KNOWN_OPTIONS);
    const url = read.string('url', { nonEmpty: true });
    const client = checkClient(read);
    const prefix = read.string('prefix') ?? DEFAULT_PREFIX;
    const commandTimeoutMs = read.milliseconds('commandTimeoutMs', DEFAULT_COMMAND_TIMEOUT_MS);
    this.prefix = prefix;
    this.timeoutMs = commandTimeoutMs;
    this.owned = client === undefined;
    // No offline queue: while Redis is down a command fails at once (a 503), instead of waiting for a reconnection.
    this.raw = (client ??
      nodeRedis.createClient({
        url,
        disableOfflineQueue: true,
        // The time limit is ours (`commandTimeoutMs`, in send): node-redis 6's own default (5 s) would start a second
        // timer (an AbortSignal.timeout) per command on the request's path.
        commandOptions: { timeout: 0 },
        socket: {
          connectTimeout: commandTimeoutMs,
          reconnectStrategy: (retries: number) => Math.min(50 * 2 ** retries, 2_000),
        },
      })) as unknown as Raw;
    this.isCluster =
      typeof (this.raw as unknown as { slots?: unknown }).slots !== 'undefined' || 'masters' in (this.raw as object);
    // A client emits 'error' while it reconnects; unheard, that would end the process.
    this.raw.on('error', () => undefined);
  }

  /** A key (or channel) of this router: the prefix, then the parts joined with `:`. */
  key(...parts: string[]): string {
    return this.prefix + parts.join(':');
  }

  /**
   * Sends one command, connecting first if needed.
   *
   * @param key - the command's first key (routes it in a Cluster)
   * @throws {StoreUnavailableError} when Redis does not answer within `commandTimeoutMs`, or is down
   */
  async send<T = unknown>(args: readonly string[], key?: string): Promise<T> {
    return this.limited(`Redis ${args[0]}`, async () => {
      await this.open();
      return (this.isCluster ? this.raw.sendCommand(key, false, args) : this.raw.sendCommand(args)) as Promise<T>;
    });
  }

  /** Listens on a channel (a second connection, made on first use) until the returned function is called. */
  async subscribe(channel: string, listener: ChannelListener): Promise<() => Promise<void>> {
    const subscriber = await this.limited('Redis SUBSCRIBE', async () => {
      if (this.subscriber === undefined) {
        this.subscriber = this.raw.duplicate();
        this.subscriber.on('error', () => undefined);
        this.subscriberReady = this.subscriber.connect();
      }
      await this.subscriberReady;
      // node-redis sends SUBSCRIBE again after a reconnection, so no listener is lost when Redis restarts.
      await this.subscriber.subscribe(channel, listener);
      return this.subscriber;
    });
    return async () => {
      await this.limited('Redis UNSUBSCRIBE', () => subscriber.unsubscribe(channel, listener)).catch(() => undefined);
    };
  }

  /** Ends the connections this store made (a client given to it is left open); never waits longer than 2 s. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const quit = async (raw: Raw | undefined, owned: boolean): Promise<void> => {
      if (raw === undefined || !raw.isOpen || !owned) return;
      const polite = (raw.close ?? raw.quit)?.call(raw).catch(() => undefined);
      const timer = new Promise<'late'>((resolve) => setTimeout(() => resolve('late'), CLOSE_TIMEOUT_MS).unref());
      if ((await Promise.race([polite, timer])) === 'late') raw.destroy?.();
    };
    await Promise.all([quit(this.subscriber, true), quit(this.raw, this.owned)]);
  }

  private async open(): Promise<void> {
    // node-redis says isOpen as soon as it starts connecting, before it is ready: wait for our own connect first.
    if (this.connecting !== undefined) {
      await this.connecting;
      return;
    }
    if (this.raw.isOpen) return;
    this.connecting ??= this.raw.connect().finally(() => {
      this.connecting = undefined;
    });
    await this.connecting;
  }

  /** Runs `work` under the command time limit; any failure is a StoreUnavailableError (no URL, no password in it). */
  private async limited<T>(what: string, work: () => Promise<T>): Promise<T> {
    if (this.closed) throw new StoreUnavailableError(`${what}: the store is closed`);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_resolve, reject) => {
      // The verdict waits for the event loop's next poll: after a stall (a GC pause, a starved CPU) the timer and
      // the reply are due together, and timers run before I/O, so a reply already in the socket would lose.
      const giveUp = (): void =>
        reject(new StoreUnavailableError(`${what} did not answer within ${this.timeoutMs} ms`));
      timer = setTimeout(() => setImmediate(giveUp), this.timeoutMs);
    });
    const running = work();
    // What finishes after the time limit is nobody's to hear: never an unhandled rejection.
    running.catch(() => undefined);
    try {
      return await Promise.race([running, late]);
    } catch (err) {
      if (err instanceof StoreUnavailableError) throw err;
      // A Redis reply error (a bug of ours, WRONGTYPE…) is not an outage: it goes on as it is.
      if (err instanceof nodeRedis.ErrorReply) throw err;
      throw new StoreUnavailableError(`${what} failed: Redis is unreachable`);
    } finally {
      clearTimeout(timer);
    }
  }
}
