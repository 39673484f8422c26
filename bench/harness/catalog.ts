// The servers under test, as the harness starts and calls them, and what each one does (for RESULTS.md).

import { PRODUCTION_ORIGIN, PRODUCTION_TOKEN } from '../servers/common';

/** One server of the comparison. */
export interface ServerSpec {
  /** Short key, used in logs and the raw-results table. */
  readonly key: string;
  /** The letter and a name: `(a) bare Express`; `m` marks a server answering 2026-07-28 requests. */
  readonly label: string;
  /** Relative to bench/. */
  readonly script: string;
  readonly args: readonly string[];
  /** Whether tools/call needs a session (initialize, then Mcp-Session-Id on every request). */
  readonly sessions: boolean;
  /** Headers every request to this server carries, besides Content-Type and Accept. */
  readonly headers: Readonly<Record<string, string>>;
  /**
   * Whether the client first signs in through the router's own authorization server (`auth.server`: register,
   * authorize, consent, token) and then sends the access token it got on every request (`harness/sign-in.ts`).
   */
  readonly signsIn?: boolean;
  /** Every request carries a DPoP proof by the bench key (server (fd)): the load child signs them. */
  readonly dpop?: boolean;
  /** What the server does, in one sentence. */
  readonly description: string;
}

const ROUTER_TAIL = "Express 5 `app.use('/mcp', mcpRouter(…))`, tools `add` and `count` registered with JSON Schema";

export const SERVERS = {
  bare: {
    key: 'bare',
    label: '(a) bare Express',
    script: 'servers/bare.ts',
    args: [],
    sessions: false,
    headers: {},
    description:
      'Express 5, `express.json()` and one POST handler that writes hand-written JSON-RPC replies: `add` as JSON, `count` as 100 SSE progress events and the result, `initialize` storing `{ createdAt }` in a Map under a random UUID (the floor of every figure)',
  },
  // Scenario 2's floor for a resumable stream: what (e) does for progress, recording every event, by hand.
  bareRecording: {
    key: 'bare-recording',
    label: '(ar) bare Express, recorded SSE',
    script: 'servers/bare.ts',
    args: ['recording'],
    sessions: false,
    headers: {},
    description:
      "(a) whose SSE reply to `count` also gives every event an id (`<stream>.<seq>`) and keeps its JSON text, the 100 most recent streams' events, as a server must to let a client resume with `Last-Event-ID`: the floor of (e)'s resumable progress stream in scenario 2",
  },
  handProduction: {
    key: 'hand-production',
    label: '(p) hand-written production',
    script: 'servers/hand-production.ts',
    args: [],
    sessions: false,
    headers: { Authorization: `Bearer ${PRODUCTION_TOKEN}`, Origin: PRODUCTION_ORIGIN },
    description: `(a) behind what (f) protects, written by hand with the router's libraries: \`cors({ origin: ['${PRODUCTION_ORIGIN}'] })\`, an Origin check (403), express-rate-limit (\`limit: 1e9\`, draft-8 headers: it counts every request and never refuses) and the bearer token's SHA-256 compared with \`timingSafeEqual\`, as route middleware before \`express.json()\`; the anchor of (f) and (fm), in scenarios 1 and 1m; clients send the token and the Origin`,
  },
  sdkStateless: {
    key: 'sdk-stateless',
    label: '(b) SDK stateless',
    script: 'servers/sdk.ts',
    args: ['stateless'],
    sessions: false,
    headers: {},
    description:
      '`@modelcontextprotocol/sdk` as its stateless example: `createMcpExpressApp()` (Host check + `express.json()`), a new `McpServer` and `StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true })` per request, JSON reply',
  },
  sdkStateful: {
    key: 'sdk-stateful',
    label: '(c) SDK stateful',
    script: 'servers/sdk.ts',
    args: ['stateful'],
    sessions: true,
    headers: {},
    description:
      "`@modelcontextprotocol/sdk` as its stateful example: `createMcpExpressApp()`, one `McpServer` + transport per session in a Map (`sessionIdGenerator: randomUUID`, no event store), replies on the POST's SSE stream (its default)",
  },
  routerStateless: {
    key: 'router-stateless',
    label: '(d) router stateless JSON',
    script: 'servers/router.ts',
    args: ['stateless'],
    sessions: false,
    headers: {},
    description: `${ROUTER_TAIL}; \`sessions: false, responseMode: 'json', rateLimit: false\` (Origin/Host check and CORS on, as by default)`,
  },
  routerStateful: {
    key: 'router-stateful',
    label: '(e) router stateful',
    script: 'servers/router.ts',
    args: ['stateful'],
    sessions: true,
    headers: {},
    description: `${ROUTER_TAIL}; sessions on with the default in-memory session and event stores, \`responseMode: 'auto'\` (JSON unless the handler streams), \`rateLimit: false\``,
  },
  routerStatefulSse: {
    key: 'router-stateful-sse',
    label: '(e′) router stateful, SSE',
    script: 'servers/router.ts',
    args: ['stateful-sse'],
    sessions: true,
    headers: {},
    description: `as (e) with \`responseMode: 'sse'\`: every reply on an SSE stream recorded in the event store, as the SDK's stateful default replies`,
  },
  // Scenario `streams` (issue 34): the (e) configuration with caps above its 10,000 streams from one address.
  routerStreams: {
    key: 'router-streams',
    label: '(es) router stateful, stream caps raised',
    script: 'servers/router.ts',
    args: ['streams'],
    sessions: true,
    headers: {},
    description: `${ROUTER_TAIL}; (e)'s options (sessions, \`responseMode: 'auto'\`, \`rateLimit: false\`, keep-alive comments every 15 s) with \`sessions: { max: 30000 }\` and \`listen: { maxStreams: 30000, maxStreamsPerPrincipal: 30000 }\`, so that 10,000 GET streams (one per session) and 10,000 listen streams from one client address fit`,
  },
  routerProduction: {
    key: 'router-production',
    label: '(f) router, production defaults',
    script: 'servers/router.ts',
    args: ['production'],
    sessions: true,
    headers: { Authorization: `Bearer ${PRODUCTION_TOKEN}`, Origin: PRODUCTION_ORIGIN },
    description: `${ROUTER_TAIL}; the defaults (sessions, Origin/Host check, CORS) plus \`auth: { tokens: [token] }\`, \`origins: ['${PRODUCTION_ORIGIN}']\` and \`rateLimit: { limit: 1e9, windowMs: 60000 }\` (the limiter runs on every request but cannot trigger); clients send the token and the Origin`,
  },
  // The modern scenarios (1m, 2m) send 2026-07-28 requests, which every server below answers without a session:
  // the router serves them statelessly whatever its `sessions` option, so (dm), (em) and (fm) are (d), (e) and
  // (f)'s processes, called without initialize.
  routerStatelessModern: {
    key: 'router-stateless-modern',
    label: '(dm) router stateless, modern',
    script: 'servers/router.ts',
    args: ['stateless'],
    sessions: false,
    headers: {},
    description:
      "the (d) server (`sessions: false, responseMode: 'json', rateLimit: false`) answering 2026-07-28 requests",
  },
  routerModern: {
    key: 'router-modern',
    label: '(em) router defaults, modern',
    script: 'servers/router.ts',
    args: ['stateful'],
    sessions: false,
    headers: {},
    description:
      "the (e) server (sessions on, `responseMode: 'auto'`, `rateLimit: false`) answering 2026-07-28 requests, which it serves without a session; a handler that reports progress turns the reply into an SSE stream",
  },
  routerProductionModern: {
    key: 'router-production-modern',
    label: '(fm) router production defaults, modern',
    script: 'servers/router.ts',
    args: ['production'],
    sessions: false,
    headers: { Authorization: `Bearer ${PRODUCTION_TOKEN}`, Origin: PRODUCTION_ORIGIN },
    description:
      'the (f) server (bearer auth, Origin check, CORS, the rate limiter that never triggers) answering 2026-07-28 requests; clients send the token and the Origin',
  },
  sdkV2Modern: {
    key: 'sdk-v2-modern',
    label: '(g) SDK v2 modern',
    script: 'servers/sdk-v2.ts',
    args: [],
    sessions: false,
    headers: {},
    description:
      "`@modelcontextprotocol/server` 2 as its Express guide shows: `createMcpHandler(factory)` (a new `McpServer` per request, its default `legacy: 'stateless'`) adapted by `@modelcontextprotocol/node`'s `toNodeHandler`, on `app.all('/mcp')` after `express.json()` and the localhost Host and Origin checks (as its `createMcpExpressApp()`); `add` and `count` registered with zod",
  },
  // Scenario `sign-in` (issue 30): (f) with the router's own JWTs against (f) with its static token; (f′) is a
  // second (f) process, a control, as (t0′) is in scenario 4.
  routerProductionAgain: {
    key: 'router-production-again',
    label: '(f′) the same as (f), a second process',
    script: 'servers/router.ts',
    args: ['production'],
    sessions: true,
    headers: { Authorization: `Bearer ${PRODUCTION_TOKEN}`, Origin: PRODUCTION_ORIGIN },
    description: "a second (f) process: its ratio to (f) is what this run's noise alone makes of two identical servers",
  },
  routerProductionDpop: {
    key: 'router-production-dpop',
    label: '(fd) router production, DPoP-bound token',
    script: 'servers/router.ts',
    args: ['production-dpop'],
    sessions: true,
    headers: { Authorization: `DPoP ${PRODUCTION_TOKEN}`, Origin: PRODUCTION_ORIGIN },
    dpop: true,
    description:
      '(f) with its token bound to a DPoP key (`auth: { verify }` answering the token with `cnf.jkt`, RFC 9449): every request carries `Authorization: DPoP <token>` and a proof (ES256, `htm`, `htu`, `iat`, `jti`, `ath`; no `content_digest`, nonce or replay tracking, the defaults), which the router verifies per request. The load child signs 4,096 distinct proofs before each run (autocannon cannot sign per request) and sends them round and round',
  },
  routerProductionVerify: {
    key: 'router-production-verify',
    label: '(fv) router production, the same verify, bearer',
    script: 'servers/router.ts',
    args: ['production-verify'],
    sessions: true,
    headers: { Authorization: `Bearer ${PRODUCTION_TOKEN}`, Origin: PRODUCTION_ORIGIN },
    description:
      "(fd)'s configuration with its token unbound and sent as `Authorization: Bearer`: the same `auth: { verify }` callback, no proof. (fd)'s cost is judged against it",
  },
  routerProductionSignIn: {
    key: 'router-production-sign-in',
    label: '(fj) router production, router-issued JWT',
    script: 'servers/router.ts',
    args: ['production-sign-in'],
    sessions: true,
    headers: { Origin: PRODUCTION_ORIGIN },
    signsIn: true,
    description:
      '(f) with `auth: { server: { signIn } }` instead of `auth: { tokens }`: the router is its own OAuth 2.1 authorization server (keys generated in the in-memory sign-in store). Before its first request the client registers (DCR), authorizes with PKCE, allows the consent page and redeems the code; every request then carries that one access token (an ES256 JWT), which the router checks once and then finds in its verified-token cache',
  },
  // Scenario `stdio` (issue 31): gateways publishing one stdio MCP server (`servers/stdio-add.ts`) over Streamable
  // HTTP. Each one's CPU figures count its upstream process too; the floor, the SDK's stdio client calling the server
  // directly (u0), runs in the load child (`load/stdio-direct.ts`), not as a server.
  stdioRouter: {
    key: 'stdio-router',
    label: '(u1) router, stdio upstream',
    script: 'servers/router-stdio.ts',
    args: [],
    sessions: true,
    headers: {},
    description:
      "this router with (e)'s options (sessions on, `rateLimit: false`) and `mcp.upstream({ prefix: 'up', command: process.execPath, args: [<stdio server>] })`, on Express 5: the caller's `tools/call up__add` is forwarded over the upstream's stdin and answered from its stdout",
  },
  stdioSupergateway: {
    key: 'stdio-supergateway',
    label: '(u2) supergateway --stateful',
    script: 'servers/supergateway.ts',
    args: ['stateful'],
    sessions: true,
    headers: {},
    description:
      'supergateway 4 (`--stdio "node <stdio server>" --outputTransport streamableHttp --stateful --logLevel none`): one child process per session, started at `initialize`; the SDK v1\'s Streamable HTTP transport in front',
  },
  // Scenario `stdio`'s HTTP part (issue 45 §3): an HTTP MCP upstream called directly (h0) and through this router (h1).
  httpUpstream: {
    key: 'http-upstream',
    label: '(h0) HTTP upstream, direct',
    script: 'servers/router.ts',
    args: ['stateless'],
    sessions: false,
    headers: {},
    description:
      "the (d) router (stateless, JSON replies), called directly by autocannon: the floor of the HTTP gateway hop, and (h1)'s upstream",
  },
  httpRouter: {
    key: 'http-router',
    label: '(h1) router, HTTP upstream',
    script: 'servers/router-http.ts',
    args: [],
    sessions: true,
    headers: {},
    description:
      "this router with (u1)'s options and `mcp.upstream({ prefix: 'up', url })` of an (h0) process it starts: the caller's `tools/call up__add` is forwarded over keep-alive HTTP (the upstream answers MCP 2026-07-28, so each call is one stateless POST)",
  },
  stdioSupergatewayStateless: {
    key: 'stdio-supergateway-stateless',
    label: '(u3) supergateway, stateless (its default)',
    script: 'servers/supergateway.ts',
    args: ['stateless'],
    sessions: false,
    headers: {},
    description:
      'supergateway 4 as (u2) without `--stateful`, its default: a new child process per request, initialized by the gateway before the request is forwarded',
  },
  // Scenario 4 (issue 21): the (d) configuration under three OpenTelemetry setups (bench/servers/telemetry-setup.ts).
  // (t0) is the base of its ratios; (t0′) and (t1′) are controls whose code per message is (t0)'s, so the run shows
  // what differences between processes alone amount to.
  telemetryAbsent: {
    key: 'telemetry-absent',
    label: '(t0) router, no @opentelemetry/api',
    script: 'servers/router.ts',
    args: ['stateless', 'absent'],
    sessions: false,
    headers: {},
    description:
      'the (d) router in a process where `@opentelemetry/api` cannot be resolved, as in an app that does not install it (the router then has no telemetry object at all, as with `telemetry: false`)',
  },
  telemetryAbsentAgain: {
    key: 'telemetry-absent-again',
    label: '(t0′) the same, a second process',
    script: 'servers/router.ts',
    args: ['stateless', 'absent'],
    sessions: false,
    headers: {},
    description:
      "a second (t0) process: its ratio to (t0) is what this run's noise alone makes of two identical servers",
  },
  telemetryIdle: {
    key: 'telemetry-idle',
    label: '(t1) router, API installed, no provider',
    script: 'servers/router.ts',
    args: ['stateless', 'idle'],
    sessions: false,
    headers: {},
    description:
      'the (d) router with `@opentelemetry/api` installed and no tracer or meter provider registered: tracing off, the case of every app without an OpenTelemetry SDK (every other server of this benchmark runs so too)',
  },
  telemetryDisabled: {
    key: 'telemetry-disabled',
    label: '(t1′) API loaded, `telemetry: false`',
    script: 'servers/router.ts',
    args: ['stateless', 'disabled'],
    sessions: false,
    headers: {},
    description:
      "the (d) router made with `telemetry: false` in a process that loads `@opentelemetry/api` itself: (t1)'s process without the router's check per message, a second control beside (t0′)",
  },
  telemetrySdk: {
    key: 'telemetry-sdk',
    label: '(t2) router, OpenTelemetry SDK on',
    script: 'servers/router.ts',
    args: ['stateless', 'sdk'],
    sessions: false,
    headers: {},
    description:
      "the (d) router with a tracer and a meter provider registered as the NodeSDK registers them (AsyncLocalStorage context, W3C propagators; `BasicTracerProvider` with the default `BatchSpanProcessor`, `MeterProvider` with a `PeriodicExportingMetricReader`), every span sampled, exporters that count spans and histogram points and drop them: the router's cost and the SDK's, without a network exporter's",
  },
} as const satisfies Record<string, ServerSpec>;

/** How a table or a log line names a server briefly: its letter, `(a)`, `(t0)` or `(f)`. */
export function short(spec: ServerSpec): string {
  return spec.label.split(' ')[0] ?? spec.label;
}
