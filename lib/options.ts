// McpRouterOptions: the public options of mcpRouter(), each with its default (resolved-config.ts checks and applies them).

import { ALL_ERAS } from './core/era-policy';
import type Ajv2020 from 'ajv/dist/2020';
import type { CorsOptions } from 'cors';
import type { Options as RateLimitOptions } from 'express-rate-limit';
import type { BearerAuthOptions } from './edge/security/bearer';
import type { AuthServerOptions } from './features/sign-in/server-options';
import type { McpLogger } from './core/logger';
import type { SessionOptions } from './edge/sessions/session-options';
import type { Icon } from './core/registry/definition';
import type { CacheHintOptions } from './core/registry/cache-hint';
import type { Guard } from './core/registry/guards';
import type { Era } from './core/versions';
import type { OriginsOption } from './edge/security/origin-host';
import type { ResponseMode } from './edge/http/accept';
import type { InputRequiredOptions } from './core/protocol/era-2026/request-state';
import type { TaskOptions } from './core/protocol/tasks/task-options';
import type { McpStore } from './edge/store/shared-store';
import type { TelemetryOptions } from './features/telemetry/telemetry-options';
import type { ServerCardOptions } from './features/server-card/card-options';
import type { ListenOptions } from './edge/listen/listen-options';
import { DEFAULT_CORS_MAX_AGE_S } from './edge/security/cors';
import { DEFAULT_RATE_LIMIT, DEFAULT_RATE_LIMIT_WINDOW_MS } from './edge/security/rate-limit';

/**
 * The `auth` option: one of `tokens`, `verify`, `fromRequest` or `server` (the router as an OAuth 2.1 authorization
 * server, {@link AuthServerOptions}), plus scopes and RFC 9728 metadata.
 */
// The bearer options are the edge's; `server` is the sign-in feature's, which the edge only counts as a token source.
export interface AuthOptions extends BearerAuthOptions<AuthServerOptions> {}

// Every default of McpRouterOptions, listed here (the default session store's are its own). Not exported by the
// package. The CORS and rate-limit ones are written where those options are checked (security/) and listed again here.
export { DEFAULT_CORS_MAX_AGE_S, DEFAULT_RATE_LIMIT, DEFAULT_RATE_LIMIT_WINDOW_MS };
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
/** Default `eras`: both, chosen per request. */
export const DEFAULT_ERAS: readonly Era[] = ALL_ERAS;
/** Default `cache.ttlMs`: 2026 clients fetch again each time (MCP 2026-07-28 caching; the SDK's default too). */
export const DEFAULT_CACHE_TTL_MS = 0;
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
   * Accepted hosts (DNS-rebinding protection): the `Host` header, or behind a proxy Express trusts, the first
   * `X-Forwarded-Host`; `false` for no check. Defaults to: when the request arrives on a loopback address, only
   * loopback hosts (`localhost`, `127.0.0.1`, `[::1]`) and the host of `publicUrl`.
   */
  allowedHosts?: string[] | false;
  /**
   * The MCP endpoint's public URL, as clients reach it (`https://mcp.example.com/mcp`): what the protected-resource
   * metadata names as the resource, 401 challenges point to, and the router's own authorization server takes as its
   * issuer, instead of the URL made from each request (its scheme and host, or, behind a proxy Express trusts,
   * `X-Forwarded-Proto` and `X-Forwarded-Host`). Set it when the app cannot tell its public URL: a proxy that
   * rewrites the path, or one whose forwarding headers Express is not set to trust. Its host is accepted as a Host
   * when `allowedHosts` is not given. `auth.resourceMetadata.resource` and `auth.server.issuer` still win for their
   * own document. Defaults to the URL of each request.
   */
  publicUrl?: string;
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
  /**
   * Experimental: serves an MCP Server Card (draft SEP-2127, the `experimental-ext-server-card` extension) at
   * `<mount path>/server-card` as `application/mcp-server-card+json`: public, cached (`ETag`, `304`), readable from
   * any origin. It names the server (`name`, `version`, `title`, `description`, `websiteUrl`, `icons`, overridden by
   * {@link ServerCardOptions}) and the endpoint's URL with the revisions it serves; never its tools, resources or
   * prompts. `true` takes everything from the router's options (its `name` must then be reverse-DNS, like
   * `com.example/inventory`, and a `description` of at most 100 characters is required). Defaults to `false` (none).
   */
  serverCard?: ServerCardOptions | boolean;
}
