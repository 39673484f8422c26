// McpRouterOptions (public, with defaults) and resolveOptions(): checked once, fully defaulted, frozen, never written back.

import type Ajv2020 from 'ajv/dist/2020';
import {
  definedOnly,
  invalidOption,
  isPositiveInteger,
  McpConfigError,
  rejectUnknownKeys,
  type OptionKeys,
} from './errors';
import type { CorsOptions } from 'cors';
import type { Options as RateLimitOptions } from 'express-rate-limit';
import { resolveAuthOptions, type AuthOptions, type ResolvedAuth } from './auth/bearer';
import type { McpLogger } from './logger';
import {
  resolveMaxSubscriptions,
  resolveSessions,
  type ResolvedSessions,
  type SessionOptions,
} from './session-options';
import { copyJson, type Icon } from './registry/definition';
import { checkCacheHint, type CacheHint, type CacheHintOptions } from './registry/cache-hint';
import { GUARD_LIST_EXPECTED, isGuardList, type Guard } from './registry/guards';
import { VERSIONS_BY_ERA, type Era } from './versions';
import type { OriginsOption } from './security/origin-host';
import type { ResolvedRateLimit } from './security/rate-limit';
import type { ResponseMode } from './http/accept';
import { CORS_ALLOWED_HEADERS, CORS_EXPOSED_HEADERS } from './http/headers';
import { resolveInputRequired, type InputRequiredOptions, type ResolvedInputRequired } from './protocol/request-state';
import { resolveTasks, type ResolvedTasks, type TaskOptions } from './tasks/task-options';
import type { McpStore } from './sessions/shared-store';
import { resolveTelemetry, type ResolvedTelemetry, type TelemetryOptions } from './telemetry/telemetry-options';
import { resolveListen, type ListenOptions, type ResolvedListen } from './transport/listen-options';

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
/** Default `rateLimit.windowMs`. */
export const DEFAULT_RATE_LIMIT_WINDOW_MS = 60_000;
/** Default `rateLimit.limit`: requests per window and key (principal or client IP). */
export const DEFAULT_RATE_LIMIT = 1_000;
/** Default `eras`: both, chosen per request. */
export const DEFAULT_ERAS: readonly Era[] = Object.freeze(['2025', '2026'] as const);
/** Default `cache.ttlMs`: 2026 clients fetch again each time (MCP 2026-07-28 caching; the SDK's default too). */
export const DEFAULT_CACHE_TTL_MS = 0;
/** Default `cors.maxAge`: how long, in seconds, a browser may cache a preflight's answer. */
export const DEFAULT_CORS_MAX_AGE_S = 600;
/** Default `streamBufferLimit`: 1 MiB unsent on one SSE connection, some thousands of notifications. */
export const DEFAULT_STREAM_BUFFER_LIMIT = 1024 * 1024;

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
  /**
   * Where everything that several instances of this router must share is kept: 2025 sessions and their recorded
   * events, the message bus, list changes and resource updates, tasks, the requestState key, the rate-limit counters
   * (`redisStore()` from `express-mcp-router/redis`). A store given for one part (`sessions.store`, `tasks.store`,
   * `rateLimit.store`, `inputRequired.stateKey`) wins for that part. `mcp.close()` closes it. Defaults to in-memory
   * stores, for one process.
   */
  store?: McpStore;
  /** Interval of SSE keep-alive comments, or `false` for none. Defaults to {@link DEFAULT_KEEP_ALIVE_MS}. */
  keepAliveMs?: number | false;
  /** Reconnection delay advised to SSE clients (`retry:`). Defaults to {@link DEFAULT_RETRY_MS}. */
  retryMs?: number;
  /**
   * Most bytes one SSE connection (a POST reply, a GET stream, a listen stream) may hold unsent for a client that
   * reads slowly or not at all, in bytes or as text like `'1mb'`; past it the connection is closed, and a 2025 client
   * resumes from its last event id. Responses and replayed events are not counted. Defaults to {@link DEFAULT_STREAM_BUFFER_LIMIT}.
   */
  streamBufferLimit?: number | string;
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
  /**
   * The protocol eras served on the endpoint, chosen per request: `'2025'` (initialize, sessions; 2024-11-05 …
   * 2025-11-25) and `'2026'` (stateless requests that carry their client state in `_meta`; 2026-07-28). With only
   * `['2026']`, `initialize` is answered 400 -32022 naming the 2026 revisions, and GET and DELETE 405. Defaults to
   * `['2025', '2026']`.
   */
  eras?: Era[];
  /**
   * How long 2026 clients may reuse the results of `server/discover`, the lists and `resources/read`, and who may
   * (`ttlMs`, `cacheScope`); a resource's own `cache` overrides it for its reads. Defaults to `{ ttlMs: 0 }` with
   * scope `'private'` when `auth` is set, else `'public'` (set `'private'` if the host app authenticates callers).
   */
  cache?: CacheHintOptions;
  /**
   * MCP 2026-07-28 `subscriptions/listen` streams (list changes and resource updates for 2026 clients), or `false`
   * for none (then `server/discover` declares no `listChanged` or `subscribe`). `maxStreamsPerPrincipal`: most
   * streams one caller (principal, else client address) may hold open, one more → 429; `maxStreams`: most on the
   * router, one more → 503. Defaults to `{ maxStreamsPerPrincipal: 16, maxStreams: 10_000 }` (see {@link ListenOptions}).
   */
  listen?: ListenOptions | false;
  /**
   * MCP 2026-07-28 `input_required` results (ctx.elicit / sample / listRoots in a 2026 request): the HMAC key that
   * seals `requestState` (`stateKey`, ≥ 32 bytes; random per process by default, so set one shared key when several
   * instances serve the endpoint) and how long a client has to retry (`stateTtlMs`, default 600 000).
   */
  inputRequired?: InputRequiredOptions;
  /**
   * Long-running tasks (tools registered with `task`): the store, how long a task is kept (`ttlMs`), the polling
   * interval suggested, and the default store's bounds (`max`, `maxPerPrincipal`). Defaults to an in-memory store
   * keeping each task one hour.
   */
  tasks?: TaskOptions;
  /**
   * OpenTelemetry spans and metrics by the MCP semantic conventions, when `@opentelemetry/api` is installed and a
   * provider registered (else nothing is recorded); `recordArguments` / `recordResults` add a tool call's arguments
   * and result to its span, or `false` turns telemetry off. Defaults to `true` (no arguments, no results).
   */
  telemetry?: TelemetryOptions | boolean;
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
  readonly streamBufferLimit: number;
  readonly clientRequestTimeoutMs: number;
  readonly auth: ResolvedAuth | undefined;
  readonly origins: OriginsOption | undefined;
  readonly allowedHosts: readonly string[] | false | undefined;
  /** The `cors` package's options but `origin` (which comes from `origins`), or false for no CORS. */
  readonly cors: Readonly<CorsOptions> | false;
  readonly rateLimit: ResolvedRateLimit | false;
  readonly maxBatchLength: number;
  readonly guards: readonly Guard[];
  readonly eras: readonly Era[];
  readonly cache: CacheHint;
  /** Undefined without listen streams (`listen: false`, or the 2026 era not served). */
  readonly listen: ResolvedListen | undefined;
  readonly inputRequired: ResolvedInputRequired;
  readonly tasks: ResolvedTasks;
  /** The shared store, when given: the router closes it, waits for its requestState key, and announces through it. */
  readonly store: McpStore | undefined;
  /** Whether `inputRequired.stateKey` was given (else a shared store's key replaces the random one at start). */
  readonly stateKeyGiven: boolean;
  /** Undefined for `telemetry: false`. */
  readonly telemetry: ResolvedTelemetry | undefined;
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
  streamBufferLimit: true,
  clientRequestTimeoutMs: true,
  auth: true,
  origins: true,
  allowedHosts: true,
  cors: true,
  rateLimit: true,
  maxBatchLength: true,
  guards: true,
  eras: true,
  cache: true,
  listen: true,
  inputRequired: true,
  tasks: true,
  store: true,
  telemetry: true,
};

const SIZE = /^(\d+(?:\.\d+)?)\s*(b|kb|mb|gb)?$/i;
const UNIT: Record<string, number> = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 };

function parseSize(option: 'bodyLimit' | 'streamBufferLimit', value: number | string): number {
  const match = typeof value === 'string' ? SIZE.exec(value.trim()) : null;
  const bytes =
    typeof value === 'number'
      ? value
      : match
        ? Math.floor(Number(match[1]) * (UNIT[(match[2] ?? 'b').toLowerCase()] ?? 1))
        : NaN;
  if (!isPositiveInteger(bytes)) throw invalidOption(option, "a positive number of bytes or text like '4mb'", value);
  return bytes;
}

function optionalString(
  options: McpRouterOptions,
  key: 'title' | 'description' | 'websiteUrl' | 'instructions',
): string | undefined {
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
  rejectUnknownKeys(options, KNOWN_OPTIONS);
  const { name, version, icons, pageSize = DEFAULT_PAGE_SIZE, logger = console, ajv } = options;
  if (typeof name !== 'string' || name.trim() === '') throw invalidOption('name', 'a non-empty string', name);
  if (typeof version !== 'string' || version.trim() === '')
    throw invalidOption('version', 'a non-empty string', version);
  const title = optionalString(options, 'title');
  const description = optionalString(options, 'description');
  const websiteUrl = optionalString(options, 'websiteUrl');
  const instructions = optionalString(options, 'instructions');
  if (icons !== undefined && (!Array.isArray(icons) || !icons.every((icon) => typeof icon?.src === 'string'))) {
    throw invalidOption('icons', 'an array of { src, mimeType?, sizes? }', icons);
  }
  if (!isPositiveInteger(pageSize)) throw invalidOption('pageSize', 'a positive integer', pageSize);
  if (typeof logger?.error !== 'function' || typeof logger.warn !== 'function')
    throw invalidOption('logger', 'an object with error() and warn()', typeof logger);
  if (ajv !== undefined && typeof ajv?.compile !== 'function')
    throw invalidOption('ajv', 'an Ajv2020 instance', typeof ajv);

  const {
    responseMode = DEFAULT_RESPONSE_MODE,
    keepAliveMs = DEFAULT_KEEP_ALIVE_MS,
    retryMs = DEFAULT_RETRY_MS,
    clientRequestTimeoutMs = DEFAULT_CLIENT_REQUEST_TIMEOUT_MS,
  } = options;
  if (responseMode !== 'auto' && responseMode !== 'sse' && responseMode !== 'json')
    throw invalidOption('responseMode', "'auto', 'sse' or 'json'", responseMode);
  if (keepAliveMs !== false && !isPositiveInteger(keepAliveMs))
    throw invalidOption('keepAliveMs', 'a positive number of milliseconds or false', keepAliveMs);
  if (!isPositiveInteger(retryMs)) throw invalidOption('retryMs', 'a positive number of milliseconds', retryMs);
  if (!isPositiveInteger(clientRequestTimeoutMs))
    throw invalidOption('clientRequestTimeoutMs', 'a positive number of milliseconds', clientRequestTimeoutMs);
  const {
    bodyLimit = DEFAULT_BODY_LIMIT,
    maxBatchLength = DEFAULT_MAX_BATCH_LENGTH,
    streamBufferLimit = DEFAULT_STREAM_BUFFER_LIMIT,
  } = options;
  if (!isPositiveInteger(maxBatchLength)) throw invalidOption('maxBatchLength', 'a positive integer', maxBatchLength);

  const eras = resolveEras(options.eras);
  const { store } = options;
  const storeParts = ['sessions', 'events', 'bus', 'serverEvents', 'tasks', 'rateLimit', 'stateKey', 'close'] as const;
  if (
    store !== undefined &&
    (typeof store !== 'object' || store === null || storeParts.some((part) => typeof store[part] !== 'function'))
  ) {
    throw invalidOption(
      'store',
      `an McpStore (${storeParts.join(', ')}), e.g. redisStore() from 'express-mcp-router/redis'`,
      typeof store,
    );
  }
  const serverInfo: Record<string, unknown> = { name, version };
  if (title !== undefined) serverInfo.title = title;
  if (description !== undefined) serverInfo.description = description;
  if (websiteUrl !== undefined) serverInfo.websiteUrl = websiteUrl;
  if (icons !== undefined) serverInfo.icons = copyJson(icons);
  return Object.freeze({
    serverInfo: Object.freeze(serverInfo),
    instructions,
    pageSize,
    bodyLimit: parseSize('bodyLimit', bodyLimit),
    logger,
    ajv,
    responseMode,
    // Sessions are of the 2025 era: a modern-only router keeps none.
    sessions: eras.includes('2025') ? resolveSessions(options.sessions, store) : undefined,
    maxSubscriptions: resolveMaxSubscriptions(options.sessions),
    keepAliveMs,
    retryMs,
    streamBufferLimit: parseSize('streamBufferLimit', streamBufferLimit),
    clientRequestTimeoutMs,
    auth: options.auth === undefined ? undefined : resolveAuthOptions(options.auth),
    origins: options.origins,
    allowedHosts:
      options.allowedHosts === undefined || options.allowedHosts === false
        ? options.allowedHosts
        : Object.freeze([...options.allowedHosts]),
    cors: resolveCors(options.cors, options.origins),
    rateLimit: resolveRateLimit(options.rateLimit, store),
    maxBatchLength,
    guards: resolveGuards(options.guards),
    eras,
    // MCP 2026-07-28 caching: with credentials, what one caller sees is not for a shared cache.
    cache: Object.freeze({
      ttlMs: DEFAULT_CACHE_TTL_MS,
      scope: options.auth === undefined ? 'public' : 'private',
      ...checkCacheHint(options.cache, 'cache'),
    } as CacheHint),
    listen: resolveListen(options.listen, eras),
    inputRequired: resolveInputRequired(options.inputRequired),
    tasks: resolveTasks(options.tasks, store && ((settings) => store.tasks(settings))),
    store,
    stateKeyGiven: options.inputRequired?.stateKey !== undefined,
    telemetry: resolveTelemetry(options.telemetry),
  });
}

function resolveEras(eras: Era[] | undefined): readonly Era[] {
  if (eras === undefined) return DEFAULT_ERAS;
  const known = Object.keys(VERSIONS_BY_ERA);
  if (!Array.isArray(eras) || eras.length === 0 || !eras.every((era) => known.includes(era)))
    throw invalidOption('eras', `a non-empty array of ${known.map((era) => `'${era}'`).join(' and ')}`, eras);
  return Object.freeze([...new Set(eras)]);
}

function resolveGuards(guards: Guard[] | undefined): readonly Guard[] {
  if (guards === undefined) return Object.freeze([]);
  if (!isGuardList(guards)) throw invalidOption('guards', GUARD_LIST_EXPECTED, guards);
  return Object.freeze([...guards]);
}

function resolveCors(
  cors: CorsOptions | false | undefined,
  origins: OriginsOption | undefined,
): Readonly<CorsOptions> | false {
  if (cors === false) return false;
  if (cors !== undefined && (typeof cors !== 'object' || cors === null))
    throw invalidOption('cors', 'cors package options or false', cors);
  if (cors?.origin !== undefined)
    throw new McpConfigError(
      'ERR_MCP_INVALID_OPTION',
      "option 'cors.origin' is not used: set 'origins', which drives both CORS and the Origin check",
    );
  // The CORS spec forbids a wildcard origin with credentials; refusing it here beats a browser error later.
  if (origins === '*' && cors?.credentials === true) {
    throw new McpConfigError(
      'ERR_MCP_INVALID_OPTION',
      "options 'origins: \"*\"' and 'cors.credentials: true' cannot go together: list the origins that may send credentials",
    );
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

/** @param shared - the router's `store`: its counters are the default `rateLimit.store`, so every instance counts */
function resolveRateLimit(
  rateLimit: Partial<RateLimitOptions> | false | undefined,
  shared: McpStore | undefined,
): ResolvedRateLimit | false {
  if (rateLimit === false) return false;
  if (rateLimit !== undefined && (typeof rateLimit !== 'object' || rateLimit === null))
    throw invalidOption('rateLimit', 'express-rate-limit options or false', rateLimit);
  const store = rateLimit?.store ?? shared?.rateLimit('router');
  return Object.freeze({
    windowMs: DEFAULT_RATE_LIMIT_WINDOW_MS,
    limit: DEFAULT_RATE_LIMIT,
    ...(rateLimit && definedOnly(rateLimit)),
    ...(store === undefined ? {} : { store }),
  });
}
