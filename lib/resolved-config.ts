// resolveOptions(): McpRouterOptions checked once, fully defaulted and frozen (ResolvedConfig); the caller's object is never written.

import { servesSessions } from './core/era-policy';
import type Ajv2020 from 'ajv/dist/2020';
import type { CorsOptions } from 'cors';
import { invalidOption, McpConfigError, type OptionKeys } from './options/config-error';
import { OptionReader } from './options/option-reader';
import { resolveAuthOptions, type ResolvedAuth } from './edge/security/bearer';
import type { McpLogger } from './core/logger';
import {
  DEFAULT_BODY_LIMIT,
  DEFAULT_CACHE_TTL_MS,
  DEFAULT_CLIENT_REQUEST_TIMEOUT_MS,
  DEFAULT_ERAS,
  DEFAULT_KEEP_ALIVE_MS,
  DEFAULT_MAX_BATCH_LENGTH,
  DEFAULT_PAGE_SIZE,
  DEFAULT_RESPONSE_MODE,
  DEFAULT_RETRY_MS,
  DEFAULT_STREAM_BUFFER_LIMIT,
  type McpRouterOptions,
} from './options';
import { resolveMaxSubscriptions, resolveSessions, type ResolvedSessions } from './edge/sessions/session-options';
import { copyJson, isIcon } from './core/registry/definition';
import { checkCacheHint, type CacheHint } from './core/registry/cache-hint';
import { GUARD_LIST_EXPECTED, isGuardList, type Guard } from './core/registry/guards';
import { VERSIONS_BY_ERA, type Era } from './core/versions';
import { resolveCors } from './edge/security/cors';
import type { OriginsOption } from './edge/security/origin-host';
import { resolveRateLimit, type ResolvedRateLimit } from './edge/security/rate-limit';
import type { ResponseMode } from './edge/http/accept';
import { resolveInputRequired, type ResolvedInputRequired } from './core/protocol/era-2026/request-state';
import { resolveTasks, type ResolvedTasks } from './core/protocol/tasks/task-options';
import type { McpStore } from './edge/store/shared-store';
import { resolveListen, type ResolvedListen } from './edge/listen/listen-options';

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
  /** `publicUrl` without a trailing slash: the endpoint's URL every document names, instead of one made per request. */
  readonly publicUrl: string | undefined;
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
}

/**
 * Every key `mcpRouter` accepts: checked by the compiler against McpRouterOptions, and at run time for JavaScript
 * callers. Not part of the package's API (lib/index.ts does not export it); the docs test compares docs/api.md's
 * options table with it.
 */
export const KNOWN_OPTIONS: OptionKeys<McpRouterOptions> = {
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
  publicUrl: true,
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
  serverCard: true,
};

/**
 * Checks every option and fills in defaults, once, when `mcpRouter()` is called.
 *
 * @throws {McpConfigError} `ERR_MCP_UNKNOWN_OPTION` for a key it does not know, `ERR_MCP_INVALID_OPTION` for a bad value
 */
export function resolveOptions(options: McpRouterOptions): ResolvedConfig {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new McpConfigError('ERR_MCP_INVALID_OPTION', "options must be an object with at least 'name' and 'version'");
  }
  const read = OptionReader.of(options, '', KNOWN_OPTIONS);
  const eras = resolveEras(options.eras);
  const store = checkStore(options.store);
  return Object.freeze({
    serverInfo: resolveServerInfo(read),
    instructions: read.string('instructions'),
    pageSize: read.positiveInteger('pageSize', DEFAULT_PAGE_SIZE),
    bodyLimit: read.size('bodyLimit', DEFAULT_BODY_LIMIT),
    logger: resolveLogger(read),
    ajv: resolveAjv(read),
    responseMode: read.oneOf('responseMode', ['auto', 'sse', 'json'], DEFAULT_RESPONSE_MODE),
    // Sessions are of the 2025 era: a router serving only 2026-07-28 keeps none.
    sessions: servesSessions(eras) ? resolveSessions(options.sessions, store) : undefined,
    maxSubscriptions: resolveMaxSubscriptions(options.sessions),
    keepAliveMs: read.milliseconds('keepAliveMs', DEFAULT_KEEP_ALIVE_MS, true),
    retryMs: read.milliseconds('retryMs', DEFAULT_RETRY_MS),
    streamBufferLimit: read.size('streamBufferLimit', DEFAULT_STREAM_BUFFER_LIMIT),
    clientRequestTimeoutMs: read.milliseconds('clientRequestTimeoutMs', DEFAULT_CLIENT_REQUEST_TIMEOUT_MS),
    auth: options.auth === undefined ? undefined : resolveAuthOptions(options.auth),
    origins: options.origins,
    allowedHosts: resolveAllowedHosts(read),
    publicUrl: resolvePublicUrl(read),
    cors: resolveCors(options.cors, options.origins),
    rateLimit: resolveRateLimit(options.rateLimit, store),
    maxBatchLength: read.positiveInteger('maxBatchLength', DEFAULT_MAX_BATCH_LENGTH),
    guards: resolveGuards(options.guards),
    eras,
    cache: resolveCacheHint(options.cache, options.auth !== undefined),
    listen: resolveListen(options.listen, eras),
    inputRequired: resolveInputRequired(options.inputRequired),
    tasks: resolveTasks(options.tasks, store && ((settings) => store.tasks(settings))),
    store,
    stateKeyGiven: options.inputRequired?.stateKey !== undefined,
  });
}

/** `serverInfo` of the 2025 initialize answer and 2026 server/discover: name, version and what else was given. */
function resolveServerInfo(read: OptionReader<McpRouterOptions>): Readonly<Record<string, unknown>> {
  const serverInfo: Record<string, unknown> = {
    name: read.string('name', { nonEmpty: true, required: true }),
    version: read.string('version', { nonEmpty: true, required: true }),
  };
  for (const key of ['title', 'description'] as const) {
    const value = read.string(key);
    if (value !== undefined) serverInfo[key] = value;
  }
  // A page clients may open: an http(s) URL, kept as written.
  if (read.url('websiteUrl') !== undefined) serverInfo.websiteUrl = String(read.raw('websiteUrl'));
  const icons = read.array(
    'icons',
    isIcon,
    'an array of { src, mimeType?, sizes?, theme? } with an http(s) or data: src',
  );
  if (icons !== undefined) serverInfo.icons = copyJson(icons);
  return Object.freeze(serverInfo);
}

function resolveLogger(read: OptionReader<McpRouterOptions>): McpLogger {
  const given = read.raw('logger');
  const logger = given === undefined ? console : given;
  if (typeof logger?.error !== 'function' || typeof logger.warn !== 'function')
    throw read.invalid('logger', 'an object with error() and warn()', typeof logger);
  return logger;
}

function resolveAjv(read: OptionReader<McpRouterOptions>): Ajv2020 | undefined {
  const ajv = read.raw('ajv');
  if (ajv !== undefined && typeof ajv?.compile !== 'function')
    throw read.invalid('ajv', 'an Ajv2020 instance', typeof ajv);
  return ajv;
}

/**
 * `publicUrl`: the endpoint as clients reach it, an https URL (http only on loopback) without userinfo, query or
 * fragment, since it becomes the RFC 9728 `resource` and the RFC 8414 issuer (RFC 8414 §2: no query or fragment).
 */
function resolvePublicUrl(read: OptionReader<McpRouterOptions>): string | undefined {
  const url = read.url('publicUrl', { https: true });
  if (url === undefined) return undefined;
  const given = String(read.raw('publicUrl'));
  if (url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '' || /[?#]/.test(given))
    throw read.invalid('publicUrl', "the endpoint's https URL, without userinfo, query or fragment");
  return `${url.origin}${url.pathname}`.replace(/\/$/, '');
}

/** `allowedHosts`: a list of host names, `false`, or absent (loopback only on a loopback address, origin-host.ts). */
function resolveAllowedHosts(read: OptionReader<McpRouterOptions>): readonly string[] | false | undefined {
  const allowedHosts = read.raw('allowedHosts');
  if (allowedHosts === undefined || allowedHosts === false) return allowedHosts;
  const isHost = (host: unknown): host is string => typeof host === 'string' && host !== '';
  return read.array('allowedHosts', isHost, 'an array of host names, or false');
}

const STORE_PARTS = ['sessions', 'events', 'bus', 'serverEvents', 'tasks', 'rateLimit', 'stateKey', 'close'] as const;

function checkStore(store: McpStore | undefined): McpStore | undefined {
  if (
    store !== undefined &&
    (typeof store !== 'object' || store === null || STORE_PARTS.some((part) => typeof store[part] !== 'function'))
  ) {
    throw invalidOption(
      'store',
      `an McpStore (${STORE_PARTS.join(', ')}), e.g. redisStore() from 'express-mcp-router/redis'`,
      typeof store,
    );
  }
  return store;
}

/**
 * The router's cache hint (MCP 2026-07-28 caching): public by default, private when requests carry credentials,
 * since what one caller sees is not for a shared cache; the `cache` option overrides either.
 */
function resolveCacheHint(cache: McpRouterOptions['cache'], authenticated: boolean): CacheHint {
  return Object.freeze({
    ttlMs: DEFAULT_CACHE_TTL_MS,
    scope: authenticated ? 'private' : 'public',
    ...checkCacheHint(cache, 'cache'),
  } as CacheHint);
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
