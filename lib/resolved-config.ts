// resolveOptions(): McpRouterOptions checked once, fully defaulted and frozen (ResolvedConfig); the caller's object is never written.

import { servesSessions } from './core/era-policy';
import type Ajv2020 from 'ajv/dist/2020';
import type { CorsOptions } from 'cors';
import {
  invalidOption,
  isPositiveInteger,
  McpConfigError,
  rejectUnknownKeys,
  type OptionKeys,
} from './options/config-error';
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
import { copyJson } from './core/registry/definition';
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
import { resolveTelemetry, type ResolvedTelemetry } from './features/telemetry/telemetry-options';
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
    sessions: servesSessions(eras) ? resolveSessions(options.sessions, store) : undefined,
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
