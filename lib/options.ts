// McpRouterOptions (public, with defaults) and resolveOptions(): checked once, fully defaulted, frozen, never written back.

import type Ajv2020 from 'ajv/dist/2020';
import { closestKey, definedOnly, invalidOption, isPositiveInteger, McpConfigError, type OptionKeys } from './errors';
import type { CorsOptions } from 'cors';
import type { Options as RateLimitOptions } from 'express-rate-limit';
import { resolveAuthOptions, type AuthOptions, type ResolvedAuth } from './auth/bearer';
import type { McpLogger } from './logger';
import { copyJson, type Icon } from './registry/definition';
import { GUARD_LIST_EXPECTED, isGuardList, type Guard } from './registry/guards';
import type { OriginsOption } from './security/origin-host';
import type { ResolvedRateLimit } from './security/rate-limit';
import type { ResponseMode } from './http/accept';
import { CORS_ALLOWED_HEADERS, CORS_EXPOSED_HEADERS } from './http/headers';
import { MemoryEventStore } from './sessions/memory-event-store';
import { MemoryMessageBus } from './sessions/memory-message-bus';
import { DEFAULT_MAX_SESSIONS, DEFAULT_SESSION_IDLE_TTL_MS, MemorySessionStore } from './sessions/memory-session-store';
import type { SessionHooks, SessionSettings } from './sessions/sessions';
import type { EventStore, MessageBus, SessionStore } from './sessions/stores';

// Every default of McpRouterOptions, written once (the default session store's are its own). Not exported by the package.
/** Default `pageSize`: items per page of `tools/list`, `resources/list`, … */
export const DEFAULT_PAGE_SIZE = 100;
/** Default `bodyLimit`: the official SDK's. */
export const DEFAULT_BODY_LIMIT = 4 * 1024 * 1024;
/** Default `responseMode`: JSON unless the handler emits something while it runs. */
export const DEFAULT_RESPONSE_MODE: ResponseMode = 'auto';
/** Default `keepAliveMs`: a comment this often keeps proxies from cutting idle SSE streams. */
export const DEFAULT_KEEP_ALIVE_MS = 15_000;
/** Default `retryMs`: the reconnection delay advised to SSE clients. */
export const DEFAULT_RETRY_MS = 1_000;
/** Default `clientRequestTimeoutMs`: how long ctx.sample / elicit / listRoots wait for the client. */
export const DEFAULT_CLIENT_REQUEST_TIMEOUT_MS = 60_000;
/** Default `maxBatchLength`: messages in one JSON-RPC batch. */
export const DEFAULT_MAX_BATCH_LENGTH = 100;
/** Default `sessions.maxStreams`: SSE streams open at once per session. */
export const DEFAULT_MAX_STREAMS = 100;
/** Default `sessions.maxPendingRequests`: requests to the client waiting at once per session. */
export const DEFAULT_MAX_PENDING_REQUESTS = 100;
/** Default `sessions.maxSubscriptions`: resource URIs one session may subscribe to. */
export const DEFAULT_MAX_SUBSCRIPTIONS = 32;
/** Default `sessions.maxPerPrincipal`: live sessions of one authenticated principal, a tenth of the default `sessions.max`. */
export const DEFAULT_MAX_SESSIONS_PER_PRINCIPAL = DEFAULT_MAX_SESSIONS / 10;
/** Default `rateLimit.windowMs`. */
export const DEFAULT_RATE_LIMIT_WINDOW_MS = 60_000;
/** Default `rateLimit.limit`: requests per window and key (principal or client IP). */
export const DEFAULT_RATE_LIMIT = 1_000;
/** Default `cors.maxAge`: how long, in seconds, a browser may cache a preflight's answer. */
export const DEFAULT_CORS_MAX_AGE_S = 600;

/** The `sessions` option: how the router keeps MCP sessions. */
export interface SessionOptions extends SessionHooks {
  /** Idle time after which a session ends (default store only). Defaults to {@link DEFAULT_SESSION_IDLE_TTL_MS}. */
  idleTtlMs?: number;
  /** Most sessions kept; a new one evicts the least recently active (default store only). Defaults to {@link DEFAULT_MAX_SESSIONS}. */
  max?: number;
  /** Whether clients may end their session with DELETE (else 405). Defaults to `true`. */
  allowDelete?: boolean;
  /** Most SSE streams open at once per session; past it, replies are JSON and messages mid-request are dropped. Defaults to {@link DEFAULT_MAX_STREAMS}. */
  maxStreams?: number;
  /** Most requests to the client (sampling, elicitation, roots) waiting at once per session. Defaults to {@link DEFAULT_MAX_PENDING_REQUESTS}. */
  maxPendingRequests?: number;
  /** Most resource URIs one session may subscribe to; one more is refused with -32602. Defaults to {@link DEFAULT_MAX_SUBSCRIPTIONS}. */
  maxSubscriptions?: number;
  /**
   * Most live sessions of one authenticated principal (auth's `subject`) in this process: a new one ends that
   * principal's least recently active session, so one token cannot fill the store. Anonymous sessions are
   * bounded by `max` only. Defaults to {@link DEFAULT_MAX_SESSIONS_PER_PRINCIPAL}.
   */
  maxPerPrincipal?: number;
  /** Where sessions are kept. Defaults to a `MemorySessionStore` with `idleTtlMs` and `max`. */
  store?: SessionStore;
  /** Where SSE events are recorded for `Last-Event-ID` resumption, or `false` for none. Defaults to a `MemoryEventStore`. */
  eventStore?: EventStore | false;
  /** Carries clients' answers to the handler waiting for them across processes. Defaults to a `MemoryMessageBus`. */
  bus?: MessageBus;
}

/** Options of {@link mcpRouter}. */
export interface McpRouterOptions {
  /** The server's name (`serverInfo.name`). Required. */
  name: string;
  /** The server's version (`serverInfo.version`). Required. */
  version: string;
  /** A display name (MCP 2025-06-18 and later). Defaults to none. */
  title?: string;
  /** What the server is for, for people (MCP 2025-11-25). Defaults to none. */
  description?: string;
  /** The server's home page (MCP 2025-11-25). Defaults to none. */
  websiteUrl?: string;
  /** Icons a client may show (MCP 2025-11-25). Defaults to none. */
  icons?: Icon[];
  /** Guidance for the model on using this server, sent by `initialize`. Defaults to none. */
  instructions?: string;
  /** Items per page of every list; a `nextCursor` is sent when more remain. Defaults to {@link DEFAULT_PAGE_SIZE}. */
  pageSize?: number;
  /** Largest request body, in bytes or as text like `'512kb'` or `'4mb'`; larger → HTTP 413. Defaults to {@link DEFAULT_BODY_LIMIT}. */
  bodyLimit?: number | string;
  /** Where the router reports failures (handler bugs) that it does not send to clients. Defaults to `console`. */
  logger?: McpLogger;
  /** An `Ajv2020` instance (for custom keywords or formats) to compile schemas with. Defaults to one per router, with `ajv-formats`. */
  ajv?: Ajv2020;
  /**
   * How requests are answered: `'auto'` replies JSON unless the handler emits something while it runs
   * (progress, a log message, a request to the client), then SSE; `'sse'` and `'json'` force one. A client
   * that accepts only one of the two types gets that one. Defaults to {@link DEFAULT_RESPONSE_MODE}.
   */
  responseMode?: ResponseMode;
  /** Session settings, or `false` for a stateless server (no `Mcp-Session-Id`, no GET stream). Defaults to `{}`. */
  sessions?: SessionOptions | false;
  /** Interval of SSE keep-alive comments, or `false` for none. Defaults to {@link DEFAULT_KEEP_ALIVE_MS}. */
  keepAliveMs?: number | false;
  /** Reconnection delay advised to SSE clients (`retry:`). Defaults to {@link DEFAULT_RETRY_MS}. */
  retryMs?: number;
  /** How long `ctx.sample`, `ctx.elicit` and `ctx.listRoots` wait for the client. Defaults to {@link DEFAULT_CLIENT_REQUEST_TIMEOUT_MS}. */
  clientRequestTimeoutMs?: number;
  /** Bearer authentication: `{ tokens }`, `{ verify }` or `{ fromRequest }`, plus scopes and RFC 9728 metadata. Defaults to none. */
  auth?: AuthOptions;
  /**
   * Browser origins allowed to call the endpoint: drives both CORS and the 403 Origin check. `'*'` for any,
   * a list (`['https://app.example.com']`) or a function. Requests without `Origin` always pass. Defaults to
   * localhost origins only.
   */
  origins?: OriginsOption;
  /**
   * Accepted `Host` headers (DNS-rebinding protection), or `false` for no check. Defaults to: when the request
   * arrives on a loopback address, only loopback hosts (`localhost`, `127.0.0.1`, `[::1]`).
   */
  allowedHosts?: string[] | false;
  /**
   * Options of the `cors` package merged over the router's, or `false` for no CORS. The router's: `origin` from
   * `origins`, MCP's request headers allowed and its response headers exposed, `maxAge` {@link DEFAULT_CORS_MAX_AGE_S}.
   * Defaults to `{}`.
   */
  cors?: CorsOptions | false;
  /**
   * express-rate-limit options, or `false`. Keyed by principal when authenticated, else by client IP.
   * Defaults to `{ limit: DEFAULT_RATE_LIMIT, windowMs: DEFAULT_RATE_LIMIT_WINDOW_MS }` ({@link DEFAULT_RATE_LIMIT},
   * {@link DEFAULT_RATE_LIMIT_WINDOW_MS}) with the standard draft-8 `RateLimit` headers.
   */
  rateLimit?: Partial<RateLimitOptions> | false;
  /** Most messages in one JSON-RPC batch (more → 400 -32600). Defaults to {@link DEFAULT_MAX_BATCH_LENGTH}. */
  maxBatchLength?: number;
  /**
   * Guards around every tool call, resource read and prompt get, before each item's own `guards` and after
   * access, argument checks and the per-tool rate limit (see {@link Guard}). `guardFor('tool', g)` limits one
   * to a kind. Defaults to `[]`.
   */
  guards?: Guard[];
}

/** The `sessions` option after checking, every default filled in (stores included): internal, frozen. */
export interface ResolvedSessions extends Omit<SessionSettings, 'logger' | 'serverEvents'> {
  readonly allowDelete: boolean;
}

/**
 * The options after checking and defaulting: internal, frozen; consumers never default a value again. `undefined`
 * stands for a policy in `auth` (none), `ajv` (one per router), `origins` and `allowedHosts` (loopback, origin-host.ts).
 */
export interface ResolvedConfig {
  readonly serverInfo: Readonly<Record<string, unknown>>;
  readonly instructions: string | undefined;
  readonly pageSize: number;
  readonly bodyLimit: number;
  readonly logger: McpLogger;
  readonly ajv: Ajv2020 | undefined;
  readonly responseMode: ResponseMode;
  /** Undefined in stateless mode (`sessions: false`). */
  readonly sessions: ResolvedSessions | undefined;
  /** `sessions.maxSubscriptions`; stateless, its default (a request's subscriptions are forgotten with it). */
  readonly maxSubscriptions: number;
  readonly keepAliveMs: number | false;
  readonly retryMs: number;
  readonly clientRequestTimeoutMs: number;
  readonly auth: ResolvedAuth | undefined;
  readonly origins: OriginsOption | undefined;
  readonly allowedHosts: readonly string[] | false | undefined;
  /** The `cors` package's options but `origin` (which comes from `origins`), or false for no CORS. */
  readonly cors: Readonly<CorsOptions> | false;
  readonly rateLimit: ResolvedRateLimit | false;
  readonly maxBatchLength: number;
  readonly guards: readonly Guard[];
}

// Checked by the compiler against McpRouterOptions, and at run time for JavaScript callers.
const KNOWN_OPTIONS: OptionKeys<McpRouterOptions> = {
  name: true,
  version: true,
  title: true,
  description: true,
  websiteUrl: true,
  icons: true,
  instructions: true,
  pageSize: true,
  bodyLimit: true,
  logger: true,
  ajv: true,
  responseMode: true,
  sessions: true,
  keepAliveMs: true,
  retryMs: true,
  clientRequestTimeoutMs: true,
  auth: true,
  origins: true,
  allowedHosts: true,
  cors: true,
  rateLimit: true,
  maxBatchLength: true,
  guards: true,
};

const KNOWN_SESSION_OPTIONS: OptionKeys<SessionOptions> = {
  idleTtlMs: true,
  max: true,
  allowDelete: true,
  maxStreams: true,
  maxPendingRequests: true,
  maxSubscriptions: true,
  maxPerPrincipal: true,
  store: true,
  eventStore: true,
  bus: true,
  onSessionCreated: true,
  onSessionClosed: true,
};

const SIZE = /^(\d+(?:\.\d+)?)\s*(b|kb|mb|gb)?$/i;
const UNIT: Record<string, number> = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 };

function parseBodyLimit(value: number | string): number {
  const match = typeof value === 'string' ? SIZE.exec(value.trim()) : null;
  const bytes = typeof value === 'number' ? value : match ? Math.floor(Number(match[1]) * (UNIT[(match[2] ?? 'b').toLowerCase()] ?? 1)) : NaN;
  if (!isPositiveInteger(bytes)) throw invalidOption('bodyLimit', "a positive number of bytes or text like '4mb'", value);
  return bytes;
}

function optionalString(options: McpRouterOptions, key: 'title' | 'description' | 'websiteUrl' | 'instructions'): string | undefined {
  const value = options[key];
  if (value !== undefined && typeof value !== 'string') throw invalidOption(key, 'a string', value);
  return value;
}

/**
 * Checks every option and fills in defaults, once, when `mcpRouter()` is called.
 *
 * @throws {McpConfigError} `ERR_MCP_UNKNOWN_OPTION` for a key it does not know, `ERR_MCP_INVALID_OPTION` for a bad value
 */
export function resolveOptions(options: McpRouterOptions): ResolvedConfig {
  if (typeof options !== 'object' || options === null) {
    throw new McpConfigError('ERR_MCP_INVALID_OPTION', "options must be an object with at least 'name' and 'version'");
  }
  for (const key of Object.keys(options)) {
    if (!Object.hasOwn(KNOWN_OPTIONS, key)) {
      const hint = closestKey(key, Object.keys(KNOWN_OPTIONS));
      throw new McpConfigError('ERR_MCP_UNKNOWN_OPTION', `unknown option '${key}'.${hint ? ` Did you mean '${hint}'?` : ''}`);
    }
  }
  const { name, version, icons, pageSize = DEFAULT_PAGE_SIZE, logger = console, ajv } = options;
  if (typeof name !== 'string' || name.trim() === '') throw invalidOption('name', 'a non-empty string', name);
  if (typeof version !== 'string' || version.trim() === '') throw invalidOption('version', 'a non-empty string', version);
  const title = optionalString(options, 'title');
  const description = optionalString(options, 'description');
  const websiteUrl = optionalString(options, 'websiteUrl');
  const instructions = optionalString(options, 'instructions');
  if (icons !== undefined && (!Array.isArray(icons) || !icons.every((icon) => typeof icon?.src === 'string'))) {
    throw invalidOption('icons', "an array of { src, mimeType?, sizes? }", icons);
  }
  if (!isPositiveInteger(pageSize)) throw invalidOption('pageSize', 'a positive integer', pageSize);
  if (typeof logger?.error !== 'function' || typeof logger.warn !== 'function') throw invalidOption('logger', 'an object with error() and warn()', typeof logger);
  if (ajv !== undefined && typeof ajv?.compile !== 'function') throw invalidOption('ajv', 'an Ajv2020 instance', typeof ajv);

  const { responseMode = DEFAULT_RESPONSE_MODE, keepAliveMs = DEFAULT_KEEP_ALIVE_MS, retryMs = DEFAULT_RETRY_MS, clientRequestTimeoutMs = DEFAULT_CLIENT_REQUEST_TIMEOUT_MS } = options;
  if (responseMode !== 'auto' && responseMode !== 'sse' && responseMode !== 'json') throw invalidOption('responseMode', "'auto', 'sse' or 'json'", responseMode);
  if (keepAliveMs !== false && !isPositiveInteger(keepAliveMs)) throw invalidOption('keepAliveMs', 'a positive number of milliseconds or false', keepAliveMs);
  if (!isPositiveInteger(retryMs)) throw invalidOption('retryMs', 'a positive number of milliseconds', retryMs);
  if (!isPositiveInteger(clientRequestTimeoutMs)) throw invalidOption('clientRequestTimeoutMs', 'a positive number of milliseconds', clientRequestTimeoutMs);
  const { bodyLimit = DEFAULT_BODY_LIMIT, maxBatchLength = DEFAULT_MAX_BATCH_LENGTH } = options;
  if (!isPositiveInteger(maxBatchLength)) throw invalidOption('maxBatchLength', 'a positive integer', maxBatchLength);

  const serverInfo: Record<string, unknown> = { name, version };
  if (title !== undefined) serverInfo.title = title;
  if (description !== undefined) serverInfo.description = description;
  if (websiteUrl !== undefined) serverInfo.websiteUrl = websiteUrl;
  if (icons !== undefined) serverInfo.icons = copyJson(icons);
  return Object.freeze({
    serverInfo: Object.freeze(serverInfo),
    instructions,
    pageSize,
    bodyLimit: parseBodyLimit(bodyLimit),
    logger,
    ajv,
    responseMode,
    sessions: resolveSessions(options.sessions),
    maxSubscriptions: resolveMaxSubscriptions(options.sessions),
    keepAliveMs,
    retryMs,
    clientRequestTimeoutMs,
    auth: options.auth === undefined ? undefined : resolveAuthOptions(options.auth),
    origins: options.origins,
    allowedHosts: options.allowedHosts === undefined || options.allowedHosts === false ? options.allowedHosts : Object.freeze([...options.allowedHosts]),
    cors: resolveCors(options.cors, options.origins),
    rateLimit: resolveRateLimit(options.rateLimit),
    maxBatchLength,
    guards: resolveGuards(options.guards),
  });
}

function resolveGuards(guards: Guard[] | undefined): readonly Guard[] {
  if (guards === undefined) return Object.freeze([]);
  if (!isGuardList(guards)) throw invalidOption('guards', GUARD_LIST_EXPECTED, guards);
  return Object.freeze([...guards]);
}

function resolveCors(cors: CorsOptions | false | undefined, origins: OriginsOption | undefined): Readonly<CorsOptions> | false {
  if (cors === false) return false;
  if (cors !== undefined && (typeof cors !== 'object' || cors === null)) throw invalidOption('cors', 'cors package options or false', cors);
  if (cors?.origin !== undefined) throw new McpConfigError('ERR_MCP_INVALID_OPTION', "option 'cors.origin' is not used: set 'origins', which drives both CORS and the Origin check");
  // The CORS spec forbids a wildcard origin with credentials; refusing it here beats a browser error later.
  if (origins === '*' && cors?.credentials === true) {
    throw new McpConfigError('ERR_MCP_INVALID_OPTION', "options 'origins: \"*\"' and 'cors.credentials: true' cannot go together: list the origins that may send credentials");
  }
  // `Mcp-Session-Id` and `WWW-Authenticate` are exposed, or a browser client could neither keep its session nor find
  // the authorization server (a common complaint about MCP servers). Lists joined once: the package joins an array
  // again on every request.
  return Object.freeze({
    methods: 'GET,POST,DELETE,OPTIONS',
    allowedHeaders: CORS_ALLOWED_HEADERS.join(','),
    exposedHeaders: CORS_EXPOSED_HEADERS.join(','),
    maxAge: DEFAULT_CORS_MAX_AGE_S,
    ...(cors && definedOnly(cors)),
  });
}

function resolveRateLimit(rateLimit: Partial<RateLimitOptions> | false | undefined): ResolvedRateLimit | false {
  if (rateLimit === false) return false;
  if (rateLimit !== undefined && (typeof rateLimit !== 'object' || rateLimit === null)) throw invalidOption('rateLimit', 'express-rate-limit options or false', rateLimit);
  return Object.freeze({ windowMs: DEFAULT_RATE_LIMIT_WINDOW_MS, limit: DEFAULT_RATE_LIMIT, ...(rateLimit && definedOnly(rateLimit)) });
}

function hasMethods(value: unknown, ...names: string[]): boolean {
  return typeof value === 'object' && value !== null && names.every((name) => typeof (value as Record<string, unknown>)[name] === 'function');
}

function resolveMaxSubscriptions(sessions: SessionOptions | false | undefined): number {
  const { maxSubscriptions = DEFAULT_MAX_SUBSCRIPTIONS } = sessions || {};
  if (!isPositiveInteger(maxSubscriptions)) throw invalidOption('sessions.maxSubscriptions', 'a positive integer', maxSubscriptions);
  return maxSubscriptions;
}

function resolveSessions(sessions: SessionOptions | false | undefined): ResolvedSessions | undefined {
  if (sessions === false) return undefined;
  if (sessions !== undefined && (typeof sessions !== 'object' || sessions === null)) throw invalidOption('sessions', 'an object of session options, or false', sessions);
  for (const key of Object.keys(sessions ?? {})) {
    if (!Object.hasOwn(KNOWN_SESSION_OPTIONS, key)) throw new McpConfigError('ERR_MCP_UNKNOWN_OPTION', `unknown option 'sessions.${key}'`);
  }
  const {
    idleTtlMs = DEFAULT_SESSION_IDLE_TTL_MS,
    max = DEFAULT_MAX_SESSIONS,
    allowDelete = true,
    maxStreams = DEFAULT_MAX_STREAMS,
    maxPendingRequests = DEFAULT_MAX_PENDING_REQUESTS,
    maxPerPrincipal = DEFAULT_MAX_SESSIONS_PER_PRINCIPAL,
    store,
    eventStore,
    bus,
    onSessionCreated,
    onSessionClosed,
  } = sessions ?? {};
  if (!isPositiveInteger(idleTtlMs)) throw invalidOption('sessions.idleTtlMs', 'a positive number of milliseconds', idleTtlMs);
  if (!isPositiveInteger(max)) throw invalidOption('sessions.max', 'a positive integer', max);
  if (typeof allowDelete !== 'boolean') throw invalidOption('sessions.allowDelete', 'a boolean', allowDelete);
  const counts = { maxStreams, maxPendingRequests, maxPerPrincipal };
  for (const [key, value] of Object.entries(counts)) {
    if (!isPositiveInteger(value)) throw invalidOption(`sessions.${key}`, 'a positive integer', value);
  }
  if (store !== undefined) {
    if (!hasMethods(store, 'get', 'set', 'touch', 'delete', 'onDrop', 'close')) throw invalidOption('sessions.store', 'a SessionStore', typeof store);
    if (sessions?.idleTtlMs !== undefined || sessions?.max !== undefined) {
      throw new McpConfigError('ERR_MCP_INVALID_OPTION', "options 'sessions.idleTtlMs' and 'sessions.max' configure the default store; configure your own 'sessions.store' instead");
    }
  }
  if (eventStore !== undefined && eventStore !== false && !hasMethods(eventStore, 'append', 'replayAfter', 'deleteSession')) {
    throw invalidOption('sessions.eventStore', 'an EventStore or false', typeof eventStore);
  }
  if (bus !== undefined && !hasMethods(bus, 'publish', 'subscribe')) throw invalidOption('sessions.bus', 'a MessageBus', typeof bus);
  if (onSessionCreated !== undefined && typeof onSessionCreated !== 'function') throw invalidOption('sessions.onSessionCreated', 'a function', onSessionCreated);
  if (onSessionClosed !== undefined && typeof onSessionClosed !== 'function') throw invalidOption('sessions.onSessionClosed', 'a function', onSessionClosed);
  return Object.freeze({
    ...definedOnly({ onSessionCreated, onSessionClosed }),
    ...counts,
    allowDelete,
    store: store ?? new MemorySessionStore({ idleTtlMs, max }),
    events: eventStore === false ? undefined : (eventStore ?? new MemoryEventStore()),
    bus: bus ?? new MemoryMessageBus(),
  });
}
