// An UpstreamClient over a child process's stdin and stdout (MCP transports › stdio, 2025 revisions): spawned lazily, initialised once, killed on close.

import { SESSION_ERA } from '../../../core/era-policy';
import { isObject } from '../../../core/jsonrpc/types';
import type { McpLogger } from '../../../core/logger';
import { isVersion2025, LATEST_PROTOCOL_VERSION_2025, type Era } from '../../../core/versions';
import type {
  UpstreamClient,
  UpstreamListener,
  UpstreamListenOptions,
  UpstreamMessage,
  UpstreamRequestOptions,
  UpstreamRoot,
} from '../shared/upstream-client';
import { MAX_UPSTREAM_MESSAGE_BYTES, upstreamError } from '../shared/upstream-wire';
import { StdioSession } from './stdio-session';
import type { StdioProgram } from './child-process';

export type { StdioProgram } from './child-process';

/** The notifications a listener receives: the lists' changes and a subscribed resource's updates. */
const LISTENED: ReadonlySet<string> = new Set([
  'notifications/tools/list_changed',
  'notifications/prompts/list_changed',
  'notifications/resources/list_changed',
  'notifications/resources/updated',
]);

export interface StdioClientOptions {
  /** The program to run: no shell, a minimal environment plus `program.env`. */
  readonly program: StdioProgram;
  /** How errors and logs name the upstream ("Upstream \"fs\" exited (code 1)"); never the command or its env. */
  readonly label: string;
  /** The most one request may take, in milliseconds; an `initialize` not answered in time kills the process. */
  readonly timeoutMs: number;
  /** The gateway's identity, sent in initialize. */
  readonly clientInfo: { readonly name: string; readonly version: string };
  /** The capabilities declared in initialize (those the gateway relays to its callers). Defaults to none. */
  readonly capabilities?: Record<string, unknown>;
  /** Receives the child's stderr lines and the protocol faults (non-JSON or oversized stdout lines), rate-bounded. */
  readonly logger: McpLogger;
  /** The longest stdout line (one message) read, in bytes; a longer one is logged and dropped. Defaults to 4 MiB. */
  readonly maxMessageBytes?: number;
  /**
   * Told when the process ended without close(): it crashed or exited ("exited (code 1)"), could not be started
   * ("could not be started (ENOENT)"), or was killed for not answering initialize. The next request spawns a new
   * process: an owner that restarts with backoff waits before sending one.
   */
  readonly onExit?: (why: string) => void;
  /** The answer to a `roots/list` it asks outside any call (see {@link serverRequestAnswer}). Defaults to none. */
  readonly roots?: readonly UpstreamRoot[];
}

/** An {@link UpstreamClient} over stdio: the same interface, and the process it runs. */
export interface StdioUpstreamClient extends UpstreamClient {
  /** The running (or starting) process's id; undefined before the first request, after its end and after close(). */
  readonly pid: number | undefined;
}

/** A listener of this client: its callbacks and resource subscriptions. */
interface Listening {
  readonly options: UpstreamListenOptions;
  uris: readonly string[];
}

/**
 * Creates a client for an MCP server run as a child process. Nothing is spawned until the first request (or
 * listen); then `initialize` (the newest 2025 revision; any revision the router speaks is accepted) and
 * `notifications/initialized`. A process that ends rejects what is in flight at once and is replaced on the next
 * request. close() stops it with SIGTERM, then SIGKILL after 2 s; the router's own exit kills any left (stdio-reaper.ts).
 *
 * @throws {TypeError} for a timeoutMs or maxMessageBytes that is not a positive number
 * @example
 * ```ts
 * const client = createStdioUpstreamClient({
 *   program: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/data'] },
 *   label: 'fs', timeoutMs: 30_000, clientInfo: { name: 'gateway', version: '1.0.0' }, logger: console,
 * });
 * const { tools } = await client.request('tools/list', {}) as { tools: unknown[] };
 * ```
 */
export function createStdioUpstreamClient(options: StdioClientOptions): StdioUpstreamClient {
  return new StdioClient(options);
}

/** What an initialised process told: the session to send on, its revision and its capabilities. */
interface Ready {
  readonly session: StdioSession;
  readonly protocolVersion: string;
  readonly capabilities: Readonly<Record<string, unknown>>;
}

/** One program's client: the process of the moment (one {@link StdioSession} per life), its handshake, its listeners. */
class StdioClient implements StdioUpstreamClient {
  /** No session id: a stdio server's one pipe is its session. */
  readonly sessionId = undefined;
  readonly #options: StdioClientOptions;
  readonly #maxMessageBytes: number;
  #session: StdioSession | undefined;
  #connecting: Promise<StdioSession> | undefined;
  #ready: Ready | undefined;
  #closed = false;
  readonly #listeners = new Set<Listening>();

  constructor(options: StdioClientOptions) {
    const { timeoutMs } = options;
    const maxMessageBytes = options.maxMessageBytes ?? MAX_UPSTREAM_MESSAGE_BYTES;
    if (!Number.isFinite(timeoutMs) || timeoutMs <= 0)
      throw new TypeError(
        `createStdioUpstreamClient: timeoutMs must be a positive number of milliseconds, got ${String(timeoutMs)}`,
      );
    if (!Number.isInteger(maxMessageBytes) || maxMessageBytes <= 0)
      throw new TypeError(
        `createStdioUpstreamClient: maxMessageBytes must be a positive integer, got ${String(maxMessageBytes)}`,
      );
    this.#options = options;
    this.#maxMessageBytes = maxMessageBytes;
  }

  get era(): Era | undefined {
    // A stdio server speaks the session lifecycle (initialize), over one pipe.
    return this.#ready === undefined ? undefined : SESSION_ERA;
  }

  get protocolVersion(): string | undefined {
    return this.#ready?.protocolVersion;
  }

  get capabilities(): Readonly<Record<string, unknown>> | undefined {
    return this.#ready?.capabilities;
  }

  get pid(): number | undefined {
    return this.#session?.pid;
  }

  async request(
    method: string,
    params: Record<string, unknown> | undefined,
    requestOptions: UpstreamRequestOptions = {},
  ): Promise<unknown> {
    if (requestOptions.signal?.aborted) throw upstreamError(this.#options.label, 'request was cancelled');
    const current = await this.#connect();
    return current.request(method, params, requestOptions);
  }

  async notify(method: string, params?: Record<string, unknown>): Promise<void> {
    const current = await this.#connect();
    if (!current.notify(method, params)) throw upstreamError(this.#options.label, current.ended ?? 'is not running');
  }

  listen(listenOptions: UpstreamListenOptions): UpstreamListener {
    if (this.#closed) throw upstreamError(this.#options.label, 'client was closed');
    const listening: Listening = {
      options: listenOptions,
      uris: [...new Set(listenOptions.resourceSubscriptions ?? [])],
    };
    this.#listeners.add(listening);
    if (this.#ready !== undefined) {
      listenOptions.onState?.('open');
      this.#subscribe(this.#ready.session, 'resources/subscribe', listening.uris);
    } else {
      // The notifications come on the process's stdout: it must run. A failure is the next request's to report.
      this.#connect().catch(() => undefined);
    }
    return {
      update: (next) => {
        const previous = listening.uris;
        listening.uris = [...new Set(next)];
        const ready = this.#ready;
        if (ready === undefined || !this.#listeners.has(listening)) return;
        this.#subscribe(
          ready.session,
          'resources/subscribe',
          listening.uris.filter((uri) => !previous.includes(uri)),
        );
        this.#subscribe(
          ready.session,
          'resources/unsubscribe',
          previous.filter((uri) => !listening.uris.includes(uri)),
        );
      },
      close: () => {
        this.#listeners.delete(listening);
      },
    };
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#listeners.clear();
    const current = this.#session;
    this.#session = undefined;
    this.#ready = undefined;
    if (current !== undefined) await current.stop('client was closed');
  }

  #setState(state: 'open' | 'retrying'): void {
    for (const listening of this.#listeners) {
      try {
        listening.options.onState?.(state);
      } catch {
        // The owner's callback failing must not break the client.
      }
    }
  }

  #onNotification(message: UpstreamMessage): void {
    if (typeof message.method !== 'string' || !LISTENED.has(message.method)) return;
    for (const listening of this.#listeners) {
      try {
        listening.options.onNotification(message);
      } catch {
        // As above.
      }
    }
  }

  #subscribe(
    current: StdioSession,
    method: 'resources/subscribe' | 'resources/unsubscribe',
    uris: readonly string[],
  ): void {
    for (const uri of uris) current.request(method, { uri }).catch(() => undefined);
  }

  #start(): StdioSession {
    const { program, label, timeoutMs, logger, roots = [] } = this.#options;
    const started: StdioSession = new StdioSession({
      program,
      label,
      timeoutMs,
      maxMessageBytes: this.#maxMessageBytes,
      logger,
      roots,
      onNotification: (message) => this.#onNotification(message),
      onEnd: (why) => {
        if (this.#session !== started) return;
        this.#session = undefined;
        this.#ready = undefined;
        if (this.#closed) return;
        this.#setState('retrying');
        this.#options.onExit?.(why);
      },
    });
    this.#session = started;
    return started;
  }

  async #handshake(current: StdioSession): Promise<StdioSession> {
    const { label, timeoutMs, clientInfo, capabilities = {} } = this.#options;
    await current.started();
    let result: unknown;
    try {
      result = await current.request('initialize', {
        protocolVersion: LATEST_PROTOCOL_VERSION_2025,
        capabilities,
        clientInfo,
      });
    } catch (error) {
      // A process that does not answer initialize is of no use: stop it rather than leave it running.
      if (current.ended === undefined)
        void current.stop(`did not answer initialize within ${timeoutMs} ms, and was stopped`);
      throw error;
    }
    const version = isObject(result) ? result.protocolVersion : undefined;
    // MCP 2025-11-25 lifecycle › Version Negotiation: a revision the client does not speak means disconnect.
    if (!isVersion2025(version)) {
      void current.stop('answered initialize with a protocol version the gateway does not speak, and was stopped');
      throw upstreamError(label, 'answered initialize with a protocol version the gateway does not speak');
    }
    current.notify('notifications/initialized');
    if (this.#closed) throw upstreamError(label, 'client was closed');
    this.#ready = {
      session: current,
      protocolVersion: version,
      capabilities: isObject(result) && isObject(result.capabilities) ? result.capabilities : {},
    };
    this.#setState('open');
    for (const listening of this.#listeners) this.#subscribe(current, 'resources/subscribe', listening.uris);
    return current;
  }

  #connect(): Promise<StdioSession> {
    if (this.#closed) return Promise.reject(upstreamError(this.#options.label, 'client was closed'));
    if (this.#ready !== undefined) return Promise.resolve(this.#ready.session);
    this.#connecting ??= this.#handshake(this.#start()).finally(() => {
      this.#connecting = undefined;
    });
    return this.#connecting;
  }
}
