// McpRouterOptions (public, with defaults) and resolveOptions(): checked once, frozen, never written back.

import type Ajv2020 from 'ajv/dist/2020';
import { isPositiveInteger, McpConfigError } from './errors';
import type { CorsOptions } from 'cors';
import type { Options as RateLimitOptions } from 'express-rate-limit';
import type { AuthOptions } from './auth/bearer';
import type { McpLogger } from './logger';
import { copyJson, type Icon } from './registry/definition';
import { isGuardList, type Guard } from './registry/guards';
import type { OriginsOption } from './security/origin-host';
import type { ResponseMode } from './http/accept';
import type { SessionHooks } from './sessions/sessions';
import type { EventStore, MessageBus, SessionStore } from './sessions/stores';

/** Default `pageSize`: items per page of `tools/list`, `resources/list`, … */
export const DEFAULT_PAGE_SIZE = 100;
/** Default `bodyLimit`: 4 MB, as the official SDK. */
export const DEFAULT_BODY_LIMIT = 4 * 1024 * 1024;
/** Default `keepAliveMs`: a comment every 15 s keeps proxies from cutting idle SSE streams. */
export const DEFAULT_KEEP_ALIVE_MS = 15_000;
/** Default `retryMs`: the reconnection delay advised to SSE clients. */
export const DEFAULT_RETRY_MS = 1_000;
/** Default `sessions.maxStreams`: SSE streams open at once per session. */
export const DEFAULT_MAX_STREAMS = 100;
/** Default `sessions.maxPendingRequests`: requests to the client waiting at once per session. */
export const DEFAULT_MAX_PENDING_REQUESTS = 100;
/** Default `sessions.maxSubscriptions`: resource URIs one session may subscribe to. */
export const DEFAULT_MAX_SUBSCRIPTIONS = 32;
/** Default `sessions.maxPerPrincipal`: live sessions of one authenticated principal, a tenth of the default `sessions.max`. */
export const DEFAULT_MAX_SESSIONS_PER_PRINCIPAL = 1_000;
/** Default `maxBatchLength`: messages in one JSON-RPC batch. */
export const DEFAULT_MAX_BATCH_LENGTH = 100;
/** Default `clientRequestTimeoutMs`: how long ctx.sample / elicit / listRoots wait for the client. */
export const DEFAULT_CLIENT_REQUEST_TIMEOUT_MS = 60_000;

/** The `sessions` option: how the router keeps MCP sessions. */
export interface SessionOptions extends SessionHooks {
  /** Idle time after which a session ends (default store only). Defaults to `1_800_000` (30 min). */
  idleTtlMs?: number;
  /** Most sessions kept; a new one evicts the least recently active (default store only). Defaults to `10_000`. */
  max?: number;
  /** Whether clients may end their session with DELETE (else 405). Defaults to `true`. */
  allowDelete?: boolean;
  /** Most SSE streams open at once per session; past it, replies are JSON and messages mid-request are dropped. Defaults to `100`. */
  maxStreams?: number;
  /** Most requests to the client (sampling, elicitation, roots) waiting at once per session. Defaults to `100`. */
  maxPendingRequests?: number;
  /** Most resource URIs one session may subscribe to; one more is refused with -32602. Defaults to `32`. */
  maxSubscriptions?: number;
  /**
   * Most live sessions of one authenticated principal (auth's `subject`) in this process: a new one ends that
   * principal's least recently active session, so one token cannot fill the store. Anonymous sessions are
   * bounded by `max` only. Defaults to `1_000`.
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
  /** Items per page of every list; a `nextCursor` is sent when more remain. Defaults to `100`. */
  pageSize?: number;
  /** Largest request body, in bytes or as text like `'512kb'` or `'4mb'`; larger → HTTP 413. Defaults to `'4mb'`. */
  bodyLimit?: number | string;
  /** Where the router reports failures (handler bugs) that it does not send to clients. Defaults to `console`. */
  logger?: McpLogger;
  /** An `Ajv2020` instance (for custom keywords or formats) to compile schemas with. Defaults to one per router, with `ajv-formats`. */
  ajv?: Ajv2020;
  /**
   * How requests are answered: `'auto'` replies JSON unless the handler emits something while it runs
   * (progress, a log message, a request to the client), then SSE; `'sse'` and `'json'` force one. A client
   * that accepts only one of the two types gets that one. Defaults to `'auto'`.
   */
  responseMode?: ResponseMode;
  /** Session settings, or `false` for a stateless server (no `Mcp-Session-Id`, no GET stream). Defaults to `{}`. */
  sessions?: SessionOptions | false;
  /** Interval of SSE keep-alive comments, or `false` for none. Defaults to `15_000`. */
  keepAliveMs?: number | false;
  /** Reconnection delay advised to SSE clients (`retry:`). Defaults to `1_000`. */
  retryMs?: number;
  /** How long `ctx.sample`, `ctx.elicit` and `ctx.listRoots` wait for the client. Defaults to `60_000`. */
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
  /** Options of the `cors` package merged over the router's (origin comes from `origins`), or `false` for no CORS. Defaults to `{}`. */
  cors?: CorsOptions | false;
  /**
   * express-rate-limit options, or `false`. Keyed by principal when authenticated, else by client IP.
   * Defaults to `{ limit: 1000, windowMs: 60_000 }` with standard `RateLimit` headers.
   */
  rateLimit?: Partial<RateLimitOptions> | false;
  /** Most messages in one JSON-RPC batch (more → 400 -32600). Defaults to `100`. */
  maxBatchLength?: number;
  /**
   * Guards around every tool call, resource read and prompt get, before each item's own `guards` and after
   * access, argument checks and the per-tool rate limit (see {@link Guard}). `guardFor('tool', g)` limits one
   * to a kind. Defaults to `[]`.
   */
  guards?: Guard[];
}

/** The options after checking and defaulting: internal, frozen. */
export interface ResolvedConfig {
  readonly serverInfo: Readonly<Record<string, unknown>>;
  readonly instructions: string | undefined;
  readonly pageSize: number;
  readonly bodyLimit: number;
  readonly logger: McpLogger;
  readonly ajv: Ajv2020 | undefined;
  readonly responseMode: ResponseMode;
  /** Checked session options, or undefined in stateless mode. */
  readonly sessions: Readonly<SessionOptions> | undefined;
  readonly keepAliveMs: number | false;
  readonly retryMs: number;
  readonly clientRequestTimeoutMs: number;
  readonly auth: Readonly<AuthOptions> | undefined;
  readonly origins: OriginsOption | undefined;
  readonly allowedHosts: readonly string[] | false | undefined;
  readonly cors: Readonly<CorsOptions> | false;
  readonly rateLimit: Readonly<Partial<RateLimitOptions>> | false;
  readonly maxBatchLength: number;
  readonly guards: readonly Guard[];
}

type KeysEnum<T> = { [P in keyof Required<T>]: true };
// Checked by the compiler against McpRouterOptions, and at run time for JavaScript callers.
const KNOWN_OPTIONS: KeysEnum<McpRouterOptions> = {
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

const KNOWN_SESSION_OPTIONS: KeysEnum<SessionOptions> = {
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

function invalid(option: string, expected: string, value: unknown): McpConfigError {
  return new McpConfigError('ERR_MCP_INVALID_OPTION', `option '${option}' must be ${expected}, got ${JSON.stringify(value) ?? typeof value}`);
}

/** The known option closest to a misspelt one (case or up to two typos), for "Did you mean". */
function closestOption(key: string): string | undefined {
  let best: string | undefined;
  let bestDistance = 3;
  for (const known of Object.keys(KNOWN_OPTIONS)) {
    const distance = known.toLowerCase() === key.toLowerCase() ? 0 : editDistance(known, key);
    if (distance < bestDistance) [best, bestDistance] = [known, distance];
  }
  return best;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

const SIZE = /^(\d+(?:\.\d+)?)\s*(b|kb|mb|gb)?$/i;
const UNIT: Record<string, number> = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 };

function parseBodyLimit(value: number | string): number {
  const match = typeof value === 'string' ? SIZE.exec(value.trim()) : null;
  const bytes = typeof value === 'number' ? value : match ? Math.floor(Number(match[1]) * (UNIT[(match[2] ?? 'b').toLowerCase()] ?? 1)) : NaN;
  if (!isPositiveInteger(bytes)) throw invalid('bodyLimit', "a positive number of bytes or text like '4mb'", value);
  return bytes;
}

function optionalString(options: McpRouterOptions, key: 'title' | 'description' | 'websiteUrl' | 'instructions'): string | undefined {
  const value = options[key];
  if (value !== undefined && typeof value !== 'string') throw invalid(key, 'a string', value);
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
      const hint = closestOption(key);
      throw new McpConfigError('ERR_MCP_UNKNOWN_OPTION', `unknown option '${key}'.${hint ? ` Did you mean '${hint}'?` : ''}`);
    }
  }
  const { name, version, icons, pageSize = DEFAULT_PAGE_SIZE, logger = console, ajv } = options;
  if (typeof name !== 'string' || name.trim() === '') throw invalid('name', 'a non-empty string', name);
  if (typeof version !== 'string' || version.trim() === '') throw invalid('version', 'a non-empty string', version);
  const title = optionalString(options, 'title');
  const description = optionalString(options, 'description');
  const websiteUrl = optionalString(options, 'websiteUrl');
  const instructions = optionalString(options, 'instructions');
  if (icons !== undefined && (!Array.isArray(icons) || !icons.every((icon) => typeof icon?.src === 'string'))) {
    throw invalid('icons', "an array of { src, mimeType?, sizes? }", icons);
  }
  if (!isPositiveInteger(pageSize)) throw invalid('pageSize', 'a positive integer', pageSize);
  if (typeof logger?.error !== 'function' || typeof logger.warn !== 'function') throw invalid('logger', 'an object with error() and warn()', typeof logger);
  if (ajv !== undefined && typeof ajv?.compile !== 'function') throw invalid('ajv', 'an Ajv2020 instance', typeof ajv);

  const { responseMode = 'auto', keepAliveMs = DEFAULT_KEEP_ALIVE_MS, retryMs = DEFAULT_RETRY_MS, clientRequestTimeoutMs = DEFAULT_CLIENT_REQUEST_TIMEOUT_MS } = options;
  if (responseMode !== 'auto' && responseMode !== 'sse' && responseMode !== 'json') throw invalid('responseMode', "'auto', 'sse' or 'json'", responseMode);
  if (keepAliveMs !== false && !isPositiveInteger(keepAliveMs)) throw invalid('keepAliveMs', 'a positive number of milliseconds or false', keepAliveMs);
  if (!isPositiveInteger(retryMs)) throw invalid('retryMs', 'a positive number of milliseconds', retryMs);
  if (!isPositiveInteger(clientRequestTimeoutMs)) throw invalid('clientRequestTimeoutMs', 'a positive number of milliseconds', clientRequestTimeoutMs);

  const serverInfo: Record<string, unknown> = { name, version };
  if (title !== undefined) serverInfo.title = title;
  if (description !== undefined) serverInfo.description = description;
  if (websiteUrl !== undefined) serverInfo.websiteUrl = websiteUrl;
  if (icons !== undefined) serverInfo.icons = copyJson(icons);
  return Object.freeze({
    serverInfo: Object.freeze(serverInfo),
    instructions,
    pageSize,
    bodyLimit: parseBodyLimit(options.bodyLimit ?? DEFAULT_BODY_LIMIT),
    logger,
    ajv,
    responseMode,
    sessions: resolveSessions(options.sessions),
    keepAliveMs,
    retryMs,
    clientRequestTimeoutMs,
    auth: resolveAuth(options.auth),
    origins: options.origins,
    allowedHosts: options.allowedHosts === undefined || options.allowedHosts === false ? options.allowedHosts : Object.freeze([...options.allowedHosts]),
    cors: resolveCors(options.cors, options.origins),
    rateLimit: resolveRateLimit(options.rateLimit),
    maxBatchLength: resolveMaxBatchLength(options.maxBatchLength),
    guards: resolveGuards(options.guards),
  });
}

function resolveGuards(guards: Guard[] | undefined): readonly Guard[] {
  if (guards === undefined) return Object.freeze([]);
  if (!isGuardList(guards)) throw invalid('guards', 'an array of guard functions (call, next) => result', guards);
  return Object.freeze([...guards]);
}

function resolveCors(cors: CorsOptions | false | undefined, origins: OriginsOption | undefined): Readonly<CorsOptions> | false {
  if (cors === false) return false;
  if (cors !== undefined && (typeof cors !== 'object' || cors === null)) throw invalid('cors', 'cors package options or false', cors);
  if (cors?.origin !== undefined) throw new McpConfigError('ERR_MCP_INVALID_OPTION', "option 'cors.origin' is not used: set 'origins', which drives both CORS and the Origin check");
  // The CORS spec forbids a wildcard origin with credentials; refusing it here beats a browser error later.
  if (origins === '*' && cors?.credentials === true) {
    throw new McpConfigError('ERR_MCP_INVALID_OPTION', "options 'origins: \"*\"' and 'cors.credentials: true' cannot go together: list the origins that may send credentials");
  }
  return Object.freeze({ ...cors });
}

function resolveRateLimit(rateLimit: Partial<RateLimitOptions> | false | undefined): Readonly<Partial<RateLimitOptions>> | false {
  if (rateLimit === false) return false;
  if (rateLimit !== undefined && (typeof rateLimit !== 'object' || rateLimit === null)) throw invalid('rateLimit', 'express-rate-limit options or false', rateLimit);
  return Object.freeze({ ...rateLimit });
}

function resolveMaxBatchLength(value: number | undefined): number {
  if (value === undefined) return DEFAULT_MAX_BATCH_LENGTH;
  if (!isPositiveInteger(value)) throw invalid('maxBatchLength', 'a positive integer', value);
  return value;
}

const KNOWN_AUTH_OPTIONS: KeysEnum<AuthOptions> = {
  tokens: true,
  verify: true,
  fromRequest: true,
  requiredScopes: true,
  resourceMetadata: true,
  resourceMetadataUrl: true,
};

function resolveAuth(auth: AuthOptions | undefined): Readonly<AuthOptions> | undefined {
  if (auth === undefined) return undefined;
  if (typeof auth !== 'object' || auth === null) throw invalid('auth', '{ tokens }, { verify } or { fromRequest }', auth);
  for (const key of Object.keys(auth)) {
    if (!Object.hasOwn(KNOWN_AUTH_OPTIONS, key)) throw new McpConfigError('ERR_MCP_UNKNOWN_OPTION', `unknown option 'auth.${key}'`);
  }
  const { requiredScopes, resourceMetadata, resourceMetadataUrl } = auth;
  if (requiredScopes !== undefined && (!Array.isArray(requiredScopes) || !requiredScopes.every((scope) => typeof scope === 'string' && scope !== ''))) {
    throw invalid('auth.requiredScopes', 'an array of scope names', requiredScopes);
  }
  if (resourceMetadata !== undefined) {
    const servers = resourceMetadata?.authorizationServers;
    // MCP authorization (RFC 9728): the metadata must name at least one authorization server.
    if (!Array.isArray(servers) || servers.length === 0 || !servers.every((server) => typeof server === 'string')) {
      throw invalid('auth.resourceMetadata.authorizationServers', 'a non-empty array of URLs', servers);
    }
  }
  if (resourceMetadataUrl !== undefined && typeof resourceMetadataUrl !== 'string') throw invalid('auth.resourceMetadataUrl', 'a URL', resourceMetadataUrl);
  return Object.freeze({ ...auth });
}

function hasMethods(value: unknown, ...names: string[]): boolean {
  return typeof value === 'object' && value !== null && names.every((name) => typeof (value as Record<string, unknown>)[name] === 'function');
}

function resolveSessions(sessions: SessionOptions | false | undefined): Readonly<SessionOptions> | undefined {
  if (sessions === false) return undefined;
  if (sessions === undefined) return Object.freeze({});
  if (typeof sessions !== 'object' || sessions === null) throw invalid('sessions', 'an object of session options, or false', sessions);
  for (const key of Object.keys(sessions)) {
    if (!Object.hasOwn(KNOWN_SESSION_OPTIONS, key)) throw new McpConfigError('ERR_MCP_UNKNOWN_OPTION', `unknown option 'sessions.${key}'`);
  }
  const { idleTtlMs, max, allowDelete, store, eventStore, bus, onSessionCreated, onSessionClosed } = sessions;
  if (idleTtlMs !== undefined && !isPositiveInteger(idleTtlMs)) throw invalid('sessions.idleTtlMs', 'a positive number of milliseconds', idleTtlMs);
  if (max !== undefined && !isPositiveInteger(max)) throw invalid('sessions.max', 'a positive integer', max);
  if (allowDelete !== undefined && typeof allowDelete !== 'boolean') throw invalid('sessions.allowDelete', 'a boolean', allowDelete);
  for (const key of ['maxStreams', 'maxPendingRequests', 'maxSubscriptions', 'maxPerPrincipal'] as const) {
    if (sessions[key] !== undefined && !isPositiveInteger(sessions[key])) throw invalid(`sessions.${key}`, 'a positive integer', sessions[key]);
  }
  if (store !== undefined) {
    if (!hasMethods(store, 'get', 'set', 'touch', 'delete', 'onDrop', 'close')) throw invalid('sessions.store', 'a SessionStore', typeof store);
    if (idleTtlMs !== undefined || max !== undefined) {
      throw new McpConfigError('ERR_MCP_INVALID_OPTION', "options 'sessions.idleTtlMs' and 'sessions.max' configure the default store; configure your own 'sessions.store' instead");
    }
  }
  if (eventStore !== undefined && eventStore !== false && !hasMethods(eventStore, 'append', 'replayAfter', 'deleteSession')) {
    throw invalid('sessions.eventStore', 'an EventStore or false', typeof eventStore);
  }
  if (bus !== undefined && !hasMethods(bus, 'publish', 'subscribe')) throw invalid('sessions.bus', 'a MessageBus', typeof bus);
  if (onSessionCreated !== undefined && typeof onSessionCreated !== 'function') throw invalid('sessions.onSessionCreated', 'a function', onSessionCreated);
  if (onSessionClosed !== undefined && typeof onSessionClosed !== 'function') throw invalid('sessions.onSessionClosed', 'a function', onSessionClosed);
  return Object.freeze({ ...sessions });
}
