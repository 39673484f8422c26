// Servers (d), (e), (f), (fj) and (t*): this router on Express 5. argv[2] picks the configuration (see ROUTER_VARIANTS), argv[3] an OpenTelemetry setup.

import express from 'express';
import { mcpRouter, type McpRouterOptions } from '../../lib';
import { serveForBench } from './control';
import { setUpTelemetry, TELEMETRY_MODES, telemetryOption, type TelemetryMode } from './telemetry-setup';
import {
  ADD_INPUT_SCHEMA,
  addResult,
  COUNT_RESULT,
  PRODUCTION_ORIGIN,
  PRODUCTION_TOKEN,
  PROGRESS_STEPS,
  benchDpopKey,
  SERVER_INFO,
} from './common';

/** The production servers' rate limit: it counts every request but cannot trigger in any benchmark. */
const PRODUCTION_RATE_LIMIT = { limit: 1_000_000_000, windowMs: 60_000 };

/**
 * The router configurations under test. The rate limit is off where the issue asks for it, and set far above
 * any benchmark's request count for the production server, so that it runs but never refuses.
 */
const ROUTER_VARIANTS = {
  /** (d) stateless, JSON replies. */
  stateless: { sessions: false, responseMode: 'json', rateLimit: false },
  /** (e) sessions (the default), replies negotiated (`auto`: JSON unless the handler streams). */
  stateful: { rateLimit: false },
  /** (e) with every reply on an SSE stream, like the SDK's stateful default. */
  'stateful-sse': { rateLimit: false, responseMode: 'sse' },
  /**
   * (e) with room for scenario `streams`' 10,000 GET streams (one per session) and 10,000 listen streams, all from
   * one client address: `sessions.max`, `listen.maxStreams` and `listen.maxStreamsPerPrincipal` above that count.
   */
  streams: {
    rateLimit: false,
    sessions: { max: 30_000 },
    listen: { maxStreams: 30_000, maxStreamsPerPrincipal: 30_000 },
  },
  /** (f) production defaults: sessions, Origin/Host check, CORS, bearer auth, and a rate limit that never triggers. */
  production: { auth: { tokens: [PRODUCTION_TOKEN] }, origins: [PRODUCTION_ORIGIN], rateLimit: PRODUCTION_RATE_LIMIT },
  /**
   * (fd) (f) with its token bound to the bench DPoP key (RFC 9449): every request carries `Authorization: DPoP` and a
   * proof (`ath`, no `content_digest`, no nonce, no replay tracking: the defaults), checked per request.
   */
  'production-dpop': {
    auth: {
      verify: (token: string) =>
        token === PRODUCTION_TOKEN
          ? { subject: 'bench-user', scopes: [], extra: { cnf: { jkt: benchDpopKey().jkt } } }
          : null,
    },
    origins: [PRODUCTION_ORIGIN],
    rateLimit: PRODUCTION_RATE_LIMIT,
  },
  /** (fv) (fd) with the token unbound and sent as Bearer: the same `verify`, what (fd)'s proofs are measured against. */
  'production-verify': {
    auth: { verify: (token: string) => (token === PRODUCTION_TOKEN ? { subject: 'bench-user', scopes: [] } : null) },
    origins: [PRODUCTION_ORIGIN],
    rateLimit: PRODUCTION_RATE_LIMIT,
  },
  /** (fj) (f) with the router as its own authorization server: clients sign in and send the JWT it issued (issue 30). */
  'production-sign-in': {
    auth: { server: { signIn: () => ({ subject: 'bench-user' }) } },
    origins: [PRODUCTION_ORIGIN],
    rateLimit: PRODUCTION_RATE_LIMIT,
  },
} satisfies Record<string, Omit<McpRouterOptions, 'name' | 'version'>>;

type RouterVariant = keyof typeof ROUTER_VARIANTS;

function isVariant(name: string | undefined): name is RouterVariant {
  return name !== undefined && Object.hasOwn(ROUTER_VARIANTS, name);
}

const variant = process.argv[2];
if (!isVariant(variant))
  throw new Error(`bench/servers/router.ts: variant must be one of ${Object.keys(ROUTER_VARIANTS).join(', ')}`);
// Scenario 4 (issue 21) names an OpenTelemetry setup; the other scenarios' servers run as the repo installs them.
const telemetryMode = process.argv[3];
if (telemetryMode !== undefined && !(TELEMETRY_MODES as readonly string[]).includes(telemetryMode))
  throw new Error(`bench/servers/router.ts: telemetry setup must be one of ${TELEMETRY_MODES.join(', ')}`);
const telemetryStats = telemetryMode === undefined ? undefined : setUpTelemetry(telemetryMode as TelemetryMode);
const mcp = mcpRouter({
  ...SERVER_INFO,
  ...ROUTER_VARIANTS[variant],
  ...(telemetryMode === undefined ? {} : telemetryOption(telemetryMode as TelemetryMode)),
} as McpRouterOptions);
mcp.tool({
  name: 'add',
  description: 'Add two numbers',
  inputSchema: ADD_INPUT_SCHEMA,
  handler: ({ a, b }) => addResult(a, b),
});
mcp.tool({
  name: 'count',
  description: `Reports ${PROGRESS_STEPS} progress steps`,
  handler: async (_args, ctx) => {
    for (let progress = 1; progress <= PROGRESS_STEPS; progress++) await ctx.progress(progress, PROGRESS_STEPS);
    return COUNT_RESULT;
  },
});
const app = express();
app.use('/mcp', mcp);
serveForBench(app, { stats: telemetryStats });
