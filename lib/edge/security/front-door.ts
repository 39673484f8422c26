// The front door: Host syntax (400), public documents, Origin/Host (403), CORS, who is calling, rate limit by caller, then 401/403, run with the endpoint as one layer.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CorsOptions } from 'cors';
import type { RequestHandler } from 'express';
import { rejectMalformedHost } from '../http/host-header';
import { carryPublicUrls, type PublicUrls } from './public-url';
import { createCorsHandler } from './cors';
import { createOriginHostGuard, createOriginMatcher, type OriginsOption } from './origin-host';
import { createRateLimiter, type ResolvedRateLimit } from './rate-limit';

/** The router options the front door reads, checked by `resolveOptions()`. */
export interface FrontDoorSettings {
  readonly origins: OriginsOption | undefined;
  /** The `allowedHosts` decision (`createHostMatcher`), made once per router and shared with its metadata documents. */
  readonly isAllowedHost: (req: IncomingMessage) => boolean;
  /** The router's public URLs, carried on each request for the code that only has the request (token verifiers). */
  readonly urls?: PublicUrls;
  readonly cors: Readonly<CorsOptions> | false;
  readonly rateLimit: ResolvedRateLimit | false;
  readonly bodyLimit: number;
  /** Public documents under the mount path, by path (a feature's, e.g. the Server Card): answered before the Origin check. */
  readonly documents?: ReadonlyMap<string, (req: IncomingMessage, res: ServerResponse) => void>;
  /** What must be done before the first request is served (a shared store's requestState key); undefined once done. */
  readonly ready?: () => Promise<void> | undefined;
}

/** The steps authentication adds (auth/middleware.ts), when the router takes tokens. */
export interface FrontDoorAuth {
  /** The router's own RFC 9728 metadata, answered first: it is public. */
  readonly ownMetadata: RequestHandler;
  /** Finds the caller, before the rate limit counts by caller. */
  readonly identify: RequestHandler;
  /** Answers 401/400/403, after the rate limit, so failed attempts count too. */
  readonly enforce: RequestHandler;
  /**
   * With `auth.server`: the authorization server's endpoints, public as the metadata is, but only for an expected
   * `Host` (the issuer is derived from it; DNS rebinding must not mint one). No `Origin` check: browser-based
   * clients of any origin call the token endpoint, and the consent form posts from the router's own origin.
   */
  readonly signInEndpoints?: { readonly serves: (path: string) => boolean; readonly handle: RequestHandler };
}

/**
 * The front door and what it guards as one middleware: in order, a malformed or repeated Host (400), the
 * features' public documents, the router's own metadata (with auth), Origin/Host (403), CORS (preflights end here),
 * who is calling, the rate limit by caller (express-rate-limit), 401/403, then `inner` (the endpoint). Everything is
 * built now; a request allocates nothing here.
 *
 * @param principalOf - the authenticated subject of a request, for the rate limit's key
 * @param inner - what runs once the request is let in
 * @example
 * ```ts
 * const serve = createFrontDoor(config, auth.steps, (req) => auth.authOf(req)?.subject, endpoint);
 * router.use(serve);
 * ```
 */
export function createFrontDoor(
  settings: FrontDoorSettings,
  auth: FrontDoorAuth | undefined,
  principalOf: (req: IncomingMessage) => string | undefined,
  inner: RequestHandler,
): RequestHandler {
  const isAllowedOrigin = createOriginMatcher(settings.origins);
  const { isAllowedHost } = settings;
  // Only auth's challenges and token verifiers read the URLs from the request: without auth, nothing is carried.
  const urls = auth === undefined ? undefined : settings.urls;
  // First of all: every route below builds URLs from the Host (metadata, issuer, challenges) or checks it.
  const steps: RequestHandler[] = [
    function mcpHostSyntax(req, res, next) {
      if (rejectMalformedHost(req, res)) return;
      if (urls !== undefined) carryPublicUrls(req, urls);
      next();
    },
  ];
  const { documents } = settings;
  if (documents !== undefined && documents.size > 0)
    steps.push(function mcpPublicDocument(req, res, next) {
      const serve = documents.get(req.path);
      if (serve === undefined) next();
      else serve(req, res);
    });
  if (auth) steps.push(auth.ownMetadata);
  const endpoints = auth?.signInEndpoints;
  // A request for an unexpected Host goes on to the guard below, which refuses it.
  // Only a sign-in path pays for the Host check here: an MCP request goes on to the guard, which checks it once.
  if (endpoints !== undefined)
    steps.push((req, res, next) =>
      endpoints.serves(req.path) && isAllowedHost(req) ? endpoints.handle(req, res, next) : next(),
    );
  steps.push(createOriginHostGuard(isAllowedOrigin, isAllowedHost));
  const { ready } = settings;
  if (ready !== undefined) {
    // Only the first requests wait; a failure (the store down) is the error handler's 503, and the next request tries again.
    steps.push(function whenReady(_req, _res, next) {
      const pending = ready();
      if (pending === undefined) return next();
      pending.then(() => next(), next);
    });
  }
  if (settings.cors !== false) steps.push(createCorsHandler(settings.origins, isAllowedOrigin, settings.cors));
  if (auth) steps.push(auth.identify);
  if (settings.rateLimit !== false)
    steps.push(createRateLimiter(settings.rateLimit, { principalOf, bodyLimit: settings.bodyLimit }));
  if (auth) steps.push(auth.enforce);
  steps.push(inner);
  return inSequence(steps);
}

/**
 * One middleware that runs `handlers` in order, as Express would run them as separate layers: each layer of an
 * Express router costs matching and `next` bookkeeping per request, and the front door has up to
 * six. A handler that calls `next(err)`, throws, or returns a rejected promise (as Express 5 handles it)
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
        if (returned instanceof Promise)
          returned.then(undefined, (error: unknown) => step(error ?? new Error('Rejected promise')));
      } catch (error) {
        step(error);
      }
    };
    step();
  };
}
