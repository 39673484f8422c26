// mcpRouter(options): resolves options once, builds registry, validator and dispatcher, and composes the express.Router.

import type { IncomingMessage, ServerResponse } from 'node:http';
import express, { type ErrorRequestHandler, type RequestHandler, type Router } from 'express';
import { createAuthenticator, type AuthOutcome, type ResolvedAuth } from './auth/bearer';
import { mountMetadataUrl, rootMetadataUrl, sendAuthFailure, type ChallengeSettings } from './auth/challenge';
import { createMetadataHandler, createOwnMetadataHandler, METADATA_PATH } from './auth/metadata';
import { asDispatcher, type RouteTarget } from './bridge/dispatch';
import { routesFromOpenApi } from './bridge/openapi';
import { appOf, appOfHandlers, appRunning, locateHandler, rootLayerCount } from './bridge/express-host';
import { routeTool, type BridgedRouteMeta, type RequestDispatcher, type RouteToolMeta } from './bridge/route-tool';
import { createWrappedRoutes } from './bridge/wrapped-routes';
import { ErrorCode } from './jsonrpc/errors';
import { resolveOptions, type McpRouterOptions } from './options';
import { createDispatcher } from './protocol/dispatcher';
import type { AuthInfo } from './registry/request-context';
import type { McpRegistration } from './registry/definition';
import type { PromptDefinition } from './registry/prompts';
import { Registry } from './registry/registry';
import type { ResourceDefinition, ResourceTemplateDefinition } from './registry/resources';
import { decoratedMembers } from './decorators/decorators';
import type { JsonSchema, ToolDefinition } from './registry/tools';
import type { InferSchema, InferToolArgs } from './schema/infer';
import { createSchemaValidator } from './schema/validator';
import { createCorsHandler } from './security/cors';
import { createHostMatcher, createOriginHostGuard, createOriginMatcher } from './security/origin-host';
import { createRateLimiter } from './security/rate-limit';
import { sendHttpError } from './http/http-error';
import { createDeleteHandler } from './transport/delete';
import { createGetHandler } from './transport/get';
import { createMethodNotAllowedHandler } from './http/not-allowed';
import { createPostHandler } from './transport/post';
import { SessionManager } from './sessions/sessions';

/** What `mcpRouter()` adds to an `express.Router`: registration of tools, resources and prompts. */
export interface McpRouterApi {
  /**
   * Registers a tool. Its schemas are compiled now; a bad definition throws `McpConfigError`. When
   * `inputSchema` is written inline, the handler's arguments are typed from it ({@link InferSchema}).
   *
   * @returns a handle whose `remove()` takes the tool off again
   */
  tool<const Schema extends JsonSchema = JsonSchema, Args = InferToolArgs<Schema>>(definition: ToolDefinition<Args> & { inputSchema?: Schema }): McpRegistration;
  /** Registers a resource with a fixed URI. */
  resource(definition: ResourceDefinition): McpRegistration;
  /** Registers a family of resources named by an RFC 6570 URI template (`users://{id}/profile`). */
  resourceTemplate<Vars extends Record<string, string> = Record<string, string>>(definition: ResourceTemplateDefinition<Vars>): McpRegistration;
  /** Registers a prompt. */
  prompt<Args extends Record<string, string | undefined> = Record<string, string | undefined>>(definition: PromptDefinition<Args>): McpRegistration;
  /** Tells the sessions subscribed to `uri` that it changed (`notifications/resources/updated` on their GET stream). */
  resourceUpdated(uri: string): void;
  /** Ends every session: aborts requests in flight, closes streams, stops timers (graceful shutdown, tests). */
  close(): Promise<void>;
  /**
   * Wraps an existing route's handlers as a tool, and returns them unchanged for Express: the REST route works
   * as before, and the tool runs the same chain in-process. With a string, it is `express.Router#route`.
   *
   * @example
   * ```ts
   * app.get('/users/:id', mcp.route({ description: 'Fetch a user', path: '/users/:id' }, requireUser, getUser));
   * ```
   */
  route(meta: BridgedRouteMeta, ...handlers: RequestHandler[]): RequestHandler[];
  /**
   * Registers tools that dispatch in-process through the whole `app` by method and path, so the app's own
   * middleware (auth, body parsing, validation, logging) runs as for a real request. No network is involved.
   */
  exposeRoutes(app: RouteTarget, routes: ReadonlyArray<RouteToolMeta & { method: string; path: string }>): McpRegistration[];
  /**
   * Registers a tool for every operation of an OpenAPI 3 document the app serves (`operationId` names it; `x-mcp:
   * false` leaves it out), dispatched like {@link McpRouterApi.exposeRoutes}.
   */
  exposeOpenApi(app: RouteTarget, document: unknown): McpRegistration[];
  /**
   * Registers the `@tool`, `@resource` and `@prompt` methods of a controller instance.
   *
   * @example
   * ```ts
   * class Users { @tool({ description: 'Fetch a user', method: 'GET', path: '/users/:id' }) get(req: Request, res: Response) { … } }
   * mcp.register(new Users());
   * ```
   */
  register(controller: object): McpRegistration[];
  /**
   * The RFC 9728 protected-resource metadata handler (unauthenticated, CORS-readable). The router already serves
   * the document at `<mount path>/.well-known/oauth-protected-resource` and names that URL in its 401s; mount this
   * at the app's root too for clients that look only where RFC 9728 puts it, and the 401s name that URL instead:
   * `app.use('/.well-known/oauth-protected-resource', mcp.authMetadata)`.
   */
  authMetadata: RequestHandler;
}

/** An `express.Router` serving MCP at the path it is mounted on, plus {@link McpRouterApi}. */
export type McpRouter = Router & McpRouterApi;

/**
 * Creates an MCP endpoint for an Express 4 or 5 app. Options are checked and schemas compiled now, so
 * a misconfiguration fails at boot; each router owns its registry, and two routers share nothing.
 *
 * @param options - see {@link McpRouterOptions}; `name` and `version` are required
 * @throws {McpConfigError} for an unknown option or a bad value
 * @example
 * ```ts
 * import express from 'express';
 * import { mcpRouter } from 'express-mcp-router';
 *
 * const mcp = mcpRouter({ name: 'inventory', version: '1.0.0' });
 * mcp.tool({
 *   name: 'add',
 *   description: 'Add two numbers',
 *   inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
 *   handler: ({ a, b }: { a: number; b: number }) => ({ sum: a + b }),
 * });
 * const app = express();
 * app.use('/mcp', mcp);
 * app.listen(3000);
 * ```
 */
export function mcpRouter(options: McpRouterOptions): McpRouter {
  const config = resolveOptions(options);
  const registry = new Registry(createSchemaValidator(config.ajv));
  const sessions = config.sessions && new SessionManager({ ...config.sessions, logger: config.logger });
  const dispatcher = createDispatcher(registry, {
    identity: { serverInfo: config.serverInfo, instructions: config.instructions },
    pageSize: config.pageSize,
    logger: config.logger,
    listChanged: sessions !== undefined,
    clientRequestTimeoutMs: config.clientRequestTimeoutMs,
    maxBatchLength: config.maxBatchLength,
    maxSubscriptions: config.maxSubscriptions,
  });
  const sse = { keepAliveMs: config.keepAliveMs, retryMs: config.retryMs };
  // Who authenticated each request: kept per router, read by the transport (handlers see it as ctx.auth).
  // RFC 9728 metadata: served at the mount path by the router itself; the app may also mount it at its root.
  const authMetadata = createMetadataHandler(config.auth, (req) => (req.path === undefined || req.path === '/' ? '' : req.path));
  const auth = config.auth && createAuthMiddleware(config.auth, challengeSettings(config.auth, authMetadata));
  const authOf = auth ? auth.authOf : (): undefined => undefined;
  const postHandler = createPostHandler(dispatcher, { ...config, sse, sessions, authOf });

  const router = express.Router();
  // In order: Origin/Host (403), CORS (preflights end here), who is calling, rate limit by caller, then 401/403.
  const isAllowedOrigin = createOriginMatcher(config.origins);
  const frontDoor: RequestHandler[] = [createOriginHostGuard(isAllowedOrigin, createHostMatcher(config.allowedHosts))];
  if (config.cors !== false) frontDoor.push(createCorsHandler(config.origins, isAllowedOrigin, config.cors));
  if (auth) frontDoor.push(auth.identify);
  if (config.rateLimit !== false) frontDoor.push(createRateLimiter(config.rateLimit, { principalOf: (req) => authOf(req)?.subject, bodyLimit: config.bodyLimit }));
  if (auth) frontDoor.push(auth.enforce);
  // Express 4 does not catch rejected promises: every async handler hands failures to the error handler below.
  const handle = (handler: (req: IncomingMessage, res: ServerResponse) => Promise<void>): RequestHandler =>
    function mcpHandler(req, res, next) {
      handler(req, res).catch(next);
    };
  const byMethod: Record<string, RequestHandler> = { POST: handle(postHandler) };
  if (sessions) {
    byMethod.GET = handle(createGetHandler(sessions, sse, authOf));
    if (config.sessions?.allowDelete) byMethod.DELETE = handle(createDeleteHandler(sessions, authOf));
    // MCP: servers that declared listChanged SHOULD announce changes, on the standalone GET stream.
    registry.onChange((kind) => sessions.broadcast({ jsonrpc: '2.0', method: `notifications/${kind}/list_changed` }));
  }
  // The front door and the endpoint are one Express layer: a request crosses the router's stack once.
  // A route as a tool, dispatched in-process through `dispatch`: every bridge way registers its tools here.
  const addRouteTool = (meta: RouteToolMeta, method: string, path: string, dispatch: RequestDispatcher): McpRegistration =>
    registry.addTool(routeTool(meta, method, path, dispatch) as ToolDefinition<never>);
  // Routes wrapped with mcp.route() are learned from the app that serves the first request (bridge/wrapped-routes.ts).
  const wrapped = createWrappedRoutes(addRouteTool, config.logger);
  const endpoint = createEndpoint(byMethod, (req) => wrapped.waiting && wrapped.learn(appOf(req)));
  const serve = inSequence(auth ? [createOwnMetadataHandler(config.auth), ...frontDoor, endpoint] : [...frontDoor, endpoint]);
  const onError: ErrorRequestHandler = function mcpErrorHandler(err, _req, res, _next) {
    config.logger.error(err, 'mcpRouter: request failed');
    if (res.headersSent) res.destroy();
    else sendHttpError(res, 500, ErrorCode.InternalError, 'Internal error');
  };
  router.use(serve);
  router.use(onError);
  runOwnLayersDirectly(router, serve, onError);

  const api: McpRouterApi = {
    tool: (definition) => registry.addTool(definition as ToolDefinition<never>),
    resource: (definition) => registry.addResource(definition),
    resourceTemplate: (definition) => registry.addTemplate(definition as ResourceTemplateDefinition<never>),
    prompt: (definition) => registry.addPrompt(definition as PromptDefinition<never>),
    resourceUpdated(uri) {
      // MCP resources › Subscriptions: only to sessions subscribed to this URI.
      sessions?.broadcast({ jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri } }, (session) => session.subscriptions.includes(uri));
    },
    close: async () => sessions?.close(),
    route: bridgeRoute,
    exposeOpenApi(app, document) {
      return api.exposeRoutes(app, routesFromOpenApi(document));
    },
    register(controller) {
      return decoratedMembers(controller).map((member): McpRegistration => {
        const { meta, fn } = member;
        if (member.kind === 'prompt') return registry.addPrompt({ ...member.meta, get: fn as PromptDefinition<never>['get'] });
        if (member.kind === 'resource') {
          return 'uriTemplate' in member.meta
            ? registry.addTemplate({ ...member.meta, read: fn as ResourceTemplateDefinition<never>['read'] })
            : registry.addResource({ ...member.meta, read: fn as ResourceDefinition['read'] });
        }
        // An Express handler (a route to bridge) says where it lives; a plain method is the tool's handler.
        if ('method' in meta && 'path' in meta && typeof meta.path === 'string') {
          const { method, path, ...toolMeta } = meta as BridgedRouteMeta & { method: string; path: string };
          return addRouteTool(toolMeta, method, path, asDispatcher(appOfHandlers(method, path, [fn as RequestHandler]) as RouteTarget, config.logger));
        }
        return registry.addTool({ ...(meta as Omit<ToolDefinition, 'handler'>), handler: fn as ToolDefinition<never>['handler'] });
      });
    },
    exposeRoutes(app, routes) {
      const dispatch = asDispatcher(appRunning(app) as RouteTarget, config.logger);
      return routes.map(({ method, path, ...meta }) => addRouteTool(meta, method, path, dispatch));
    },
    authMetadata,
  };
  // `route` keeps serving Express's own router.route(path), which Router#get and friends use internally.
  const expressRoute = (Object.getPrototypeOf(router) as { route(path: string): unknown }).route;
  function bridgeRoute(meta: BridgedRouteMeta | string, ...handlers: RequestHandler[]): RequestHandler[] {
    if (typeof meta === 'string') return expressRoute.call(router, meta) as RequestHandler[];
    return wrapped.wrap(meta, handlers);
  }
  return Object.assign(router, api);
}

/**
 * Authentication in two steps: `identify` finds the caller (so the rate limit can count per caller, and
 * failed attempts count per IP), then `enforce` answers failures (401/400/403) before the transport;
 * `authOf` reads the caller back.
 */
function createAuthMiddleware(
  options: ResolvedAuth,
  challenge: ChallengeSettings,
): { identify: RequestHandler; enforce: RequestHandler; authOf: (req: IncomingMessage) => AuthInfo | undefined } {
  const authenticate = createAuthenticator(options);
  // Each request's outcome, under a property no one else can name: cheaper per request than a WeakMap entry,
  // which the GC must trace.
  const outcomeKey = Symbol('mcpRouter.auth');
  const outcomeOf = (req: IncomingMessage): AuthOutcome | undefined => (req as unknown as Record<symbol, AuthOutcome | undefined>)[outcomeKey];
  return {
    identify: function mcpAuthIdentify(req, _res, next) {
      const record = (outcome: AuthOutcome): void => {
        (req as unknown as Record<symbol, AuthOutcome>)[outcomeKey] = outcome;
        next();
      };
      const outcome = authenticate(req);
      if (outcome instanceof Promise) outcome.then(record, next);
      else record(outcome);
    },
    enforce: function mcpAuthEnforce(req, res, next) {
      const outcome = outcomeOf(req);
      if (outcome === undefined || outcome.ok) next();
      else sendAuthFailure(req, res, outcome.failure, challenge);
    },
    authOf(req) {
      const outcome = outcomeOf(req);
      return outcome?.ok ? outcome.auth : undefined;
    },
  };
}

/**
 * What a 401 names: `auth.resourceMetadataUrl` when set; else the app's root well-known URL when the app mounts
 * `mcp.authMetadata` there; else the router's own `<mount path>/.well-known/oauth-protected-resource`, so the
 * URL in a challenge always answers the metadata as JSON with one mount line (clients follow the header first).
 */
function challengeSettings(options: ResolvedAuth, authMetadata: unknown): ChallengeSettings {
  const scope = (options.requiredScopes ?? options.resourceMetadata?.scopesSupported ?? []).join(' ');
  const preShared = options.tokens !== undefined;
  const fixed = options.resourceMetadataUrl;
  if (fixed !== undefined) return { metadataUrlOf: () => fixed, scope, preShared };
  // Once found at the root, an app keeps it there; until then the stack is walked again only when the app's own
  // router has gained layers since the last look, so a flood of 401s does not walk it once each.
  const layersSeen = new WeakMap<object, number | 'at root'>();
  const servedAtRoot = (app: unknown): boolean => {
    if (typeof app !== 'function') return false;
    const seen = layersSeen.get(app);
    const layers = rootLayerCount(app);
    if (seen === 'at root' || seen === layers) return seen === 'at root';
    const found = locateHandler(app, authMetadata).some((place) => place.ok && place.path.startsWith(METADATA_PATH));
    layersSeen.set(app, found ? 'at root' : layers);
    return found;
  };
  return { metadataUrlOf: (req) => (servedAtRoot(appOf(req)) ? rootMetadataUrl(req) : mountMetadataUrl(req)), scope, preShared };
}

/**
 * One middleware that runs `handlers` in order, as Express would run them as separate layers: each layer
 * of an Express router costs ~4.5 µs per request (matching, `next` bookkeeping), and the front door had up to
 * five. A handler that calls `next(err)`, throws, or returns a rejected promise (as Express 5 handles it)
 * hands the error on; the rest are skipped.
 */
function inSequence(handlers: readonly RequestHandler[]): RequestHandler {
  if (handlers.length === 1) return handlers[0] as RequestHandler;
  return function mcpFrontDoor(req, res, next) {
    let index = 0;
    const step = (err?: unknown): void => {
      if (err !== undefined && err !== null) return next(err);
      const handler = handlers[index++];
      if (handler === undefined) return next();
      try {
        const returned: unknown = handler(req, res, step);
        if (returned instanceof Promise) returned.then(undefined, (error: unknown) => step(error ?? new Error('Rejected promise')));
      } catch (error) {
        step(error);
      }
    };
    step();
  };
}

/**
 * Express hands a mounted router each request through `Router#handle`, which parses the URL again, matches
 * each layer and saves and restores `req.baseUrl`, `req.next` and `req.params`: about a tenth of the router's
 * own cost per request (bench/README.md). While the stack holds only the router's two layers, the request
 * goes to them directly, as `Router#handle` would send it: `serve`, then `onError` for an error, then out.
 * Once the host adds to the stack (`mcp.use`, `mcp.get`, …), Express's own `handle` runs it all.
 */
function runOwnLayersDirectly(router: Router, serve: RequestHandler, onError: ErrorRequestHandler): void {
  const target = router as unknown as { handle: RequestHandler; stack: unknown[] };
  const ownLayers = target.stack.length;
  const expressHandle = target.handle;
  target.handle = function handle(req, res, out) {
    // Without a callback (the router called as a bare request listener), Express's handle says what is wrong.
    if (target.stack.length !== ownLayers || typeof out !== 'function') {
      expressHandle.call(router, req, res, out);
      return;
    }
    // 'route' and 'router' leave this router without an error, as Express treats them.
    serve(req, res, (err?: unknown) => {
      if (err === undefined || err === null || err === 'route' || err === 'router') out();
      else {
        try {
          onError(err, req, res, out);
        } catch (failure) {
          out(failure);
        }
      }
    });
  };
}

/**
 * The MCP endpoint, the mount path itself: each HTTP method to its handler, 405 with `Allow` for the others.
 * HEAD goes to the GET handler, as Express routes it, which answers with GET's status and headers and opens no
 * stream (RFC 9110 §9.3.2); without GET (`sessions: false`) it gets GET's 405. Other paths under the mount are the
 * host app's (its 404).
 */
function createEndpoint(byMethod: Readonly<Record<string, RequestHandler>>, beforeEach: (req: IncomingMessage) => void): RequestHandler {
  const notAllowed = createMethodNotAllowedHandler(Object.keys(byMethod));
  return function mcpEndpoint(req, res, next) {
    if (req.path !== '/') return next();
    beforeEach(req);
    const handler = byMethod[req.method === 'HEAD' ? 'GET' : req.method];
    if (handler) handler(req, res, next);
    else notAllowed(req, res);
  };
}
