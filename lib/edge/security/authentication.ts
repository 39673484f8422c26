// The router's authentication: who is calling (identify), 401/400/403 before the transport (enforce), and where challenges point.

import type { IncomingMessage } from 'node:http';
import type { RequestHandler } from 'express';
import { sendHttpError } from '../http/http-error';
import { ErrorCode } from '../../core/jsonrpc/errors';
import { appOf, locateHandler, rootLayerCount } from '../express-host';
import type { AuthInfo } from '../../core/registry/request-context';
import { createAuthenticator, type AuthOutcome, type ResolvedAuth } from './bearer';
import { mountMetadataUrl, rootMetadataUrl, sendAuthFailure, type ChallengeSettings } from './challenge';
import { createMetadataHandler, createOwnMetadataHandler, METADATA_PATH } from './resource-metadata';
import { createPublicUrls, type PublicUrls } from './public-url';
import { rejectHostOfDocument } from '../http/host-header';
import type { TokenIssuer } from './token-issuer';
import type { McpStore } from '../store/shared-store';
import { MemorySignInStore } from '../store/memory-sign-in-store';
import { signInLimits } from '../store/sign-in-store';
import { expectBodyDigest } from '../http/body-digest';
import { createDpopCheck, DPOP_ALGORITHMS, type DpopCheck } from './dpop';
import { MAX_TRACKED_PROOFS } from './dpop-options';
import { createDpopPresentation, requiresDpop } from './dpop-presentation';
import { authFailureAnswer } from './challenge';
import type { PresentedTokens } from './presented-tokens';

/** What authentication shares with the rest of the router: DPoP nonces' key and proof ids (across instances), and presented tokens. */
export interface SharedAuthState {
  /** The `requestState` key (filled in place with the shared one before the first request): DPoP nonces derive from it. */
  readonly stateKey: Buffer;
  /** The `store` option: where DPoP proof ids are remembered with `auth.dpop.trackReplays`. */
  readonly store: McpStore | undefined;
  /** Where each request's presented token is kept for the features that ask (the gateway's token exchange). */
  readonly presented?: PresentedTokens;
  /** The router's public URLs (`createPublicUrls`); without it, URLs are made from each request and no host is vouched for. */
  readonly urls?: PublicUrls;
}

/** The URLs of a router made without its options (tests, and routers built by hand): from the request, nothing vouched. */
const UNVOUCHED = createPublicUrls({ publicUrl: undefined, allowedHosts: false, logger: undefined });

/** The steps authentication adds to the router's front door, in the order they run. */
export interface AuthSteps {
  /** Serves `<mount path>/.well-known/oauth-protected-resource` before anything else: the document is public. */
  readonly ownMetadata: RequestHandler;
  /** Finds the caller (so the rate limit can count per caller, and failed attempts count per IP). */
  readonly identify: RequestHandler;
  /** Answers failures (401/400/403) before the transport. */
  readonly enforce: RequestHandler;
  /** With `auth.server`: the authorization server's endpoints, before the Origin check (they are public). */
  readonly signInEndpoints?: { readonly serves: (path: string) => boolean; readonly handle: RequestHandler };
}

/** Everything one router does about authentication. */
export interface RouterAuth {
  /** `mcp.authMetadata`: the RFC 9728 document for the app's root (a JSON 404 without `auth`). */
  readonly metadata: RequestHandler;
  /** `mcp.authServerMetadata`: the RFC 8414 document for the app's root (a JSON 404 without `auth.server`). */
  readonly serverMetadata: RequestHandler;
  /** Who authenticated a request (handlers see it as `ctx.auth`); always undefined without `auth`. */
  readonly authOf: (req: IncomingMessage) => AuthInfo | undefined;
  /** The front door's steps; undefined without `auth`. */
  readonly steps: AuthSteps | undefined;
}

/**
 * Creates one router's authentication from its checked `auth` option.
 *
 * @param options - the router's `auth` option, checked by `resolveOptions()`; undefined when it takes no tokens
 * @param issuer - with `auth.server`: the router's own authorization server (the sign-in feature installs it)
 * @param shared - what the router's instances share (DPoP nonces and proof ids)
 * @example
 * ```ts
 * const isAllowedHost = createHostMatcher(config.allowedHosts);
 * const auth = createRouterAuth(config.auth, isAllowedHost);
 * const frontDoor = createFrontDoor({ ...config, isAllowedHost }, auth.steps, (req) => auth.authOf(req)?.subject, endpoint);
 * ```
 */
export function createRouterAuth(
  auth: ResolvedAuth | undefined,
  /** The `allowedHosts` decision (`createHostMatcher`): every metadata document names the Host's origin. */
  isAllowedHost: (req: IncomingMessage) => boolean,
  issuer?: TokenIssuer,
  shared: SharedAuthState = { stateKey: Buffer.alloc(32), store: undefined },
): RouterAuth {
  // What challenges and metadata say of the router's own authorization server, from the server itself.
  const options = auth && issuer ? { ...auth, server: { issuer: issuer.issuer, scopes: issuer.scopes } } : auth;
  const urls = shared.urls ?? UNVOUCHED;
  // RFC 9728 metadata: served at the mount path by the router itself; the app may also mount it at its root, where
  // the resource's path is the one after the well-known prefix (RFC 9728 §3.1), unless `publicUrl` fixes it.
  const metadata = createMetadataHandler(
    options,
    (req) => urls.fixed ?? `${urls.originOf(req)}${req.path === undefined || req.path === '/' ? '' : req.path}`,
    isAllowedHost,
    (req) => urls.documentHeaders(req),
  );
  const serverMetadata: RequestHandler = (_req, res) =>
    sendHttpError(
      res,
      404,
      ErrorCode.ServerError,
      "Not Found: this MCP router is no authorization server (option 'auth.server')",
    );
  if (options === undefined) return { metadata, serverMetadata, authOf: () => undefined, steps: undefined };
  // The tokens' audience: the resource the metadata names (a fixed issuer is the router's public URL, as in metadata.ts).
  const resourceOf = (req: IncomingMessage): string =>
    options.resourceMetadata?.resource ?? options.server?.issuer ?? urls.endpointOf(req);
  const dpop = dpopCheckOf(options, shared);
  const server = issuer?.start(resourceOf, dpop);
  // RFC 9449 §4.3 step 9: `htu` names this server's URL: the resource the options fix; else the URL the client
  // reached (behind a proxy: its public origin), or the resource made from it, but only from a Host the operator
  // vouches for — any other Host would let a proof made for another server pass here.
  const fixed = options.resourceMetadata?.resource ?? options.server?.issuer ?? urls.fixed;
  const urisOf = (req: IncomingMessage): string[] => {
    if (fixed !== undefined) return [fixed];
    const endpoint = urls.vouchedEndpointOf(req);
    return endpoint === undefined ? [] : [urls.requestUrlOf(req), endpoint];
  };
  const required = requiresDpop(options.verify);
  const { identify, enforce, authOf } = createAuthMiddleware(
    options,
    { ...challengeSettings(options, metadata), dpop: { algs: DPOP_ALGORITHMS.join(' '), required, nonce: dpop.nonce } },
    server?.verify,
    createDpopPresentation(dpop, required, urisOf),
    shared.presented,
  );
  const ownMetadata = createOwnMetadataHandler(options, urls, isAllowedHost);
  const rootServerMetadata: RequestHandler | undefined =
    server &&
    ((req, res, next) => rejectHostOfDocument(isAllowedHost, req, res) || server.rootMetadata(req, res, next));
  return {
    metadata,
    serverMetadata: rootServerMetadata ?? serverMetadata,
    authOf,
    steps: {
      ownMetadata,
      identify,
      enforce,
      ...(server && { signInEndpoints: { serves: server.serves, handle: server.handle as RequestHandler } }),
    },
  };
}

/**
 * Authentication in two steps: `identify` finds the caller, then `enforce` answers failures; `authOf` reads the
 * caller back.
 */
function createAuthMiddleware(
  options: ResolvedAuth,
  challenge: ChallengeSettings,
  ownTokens: ((token: string, req: IncomingMessage) => Promise<AuthInfo | undefined>) | undefined,
  presentation: ReturnType<typeof createDpopPresentation>,
  presented: PresentedTokens | undefined,
): { identify: RequestHandler; enforce: RequestHandler; authOf: (req: IncomingMessage) => AuthInfo | undefined } {
  const authenticate = createAuthenticator(options, ownTokens, presentation);
  // Each request's outcome, under a property no one else can name: cheaper per request than a WeakMap entry,
  // which the GC must trace.
  const outcomeKey = Symbol('mcpRouter.auth');
  const outcomeOf = (req: IncomingMessage): AuthOutcome | undefined =>
    (req as unknown as Record<symbol, AuthOutcome | undefined>)[outcomeKey];
  return {
    identify: function mcpAuthIdentify(req, _res, next) {
      const record = (outcome: AuthOutcome): void => {
        // Only once a feature asked (the gateway's token exchange) is the token kept, apart from the outcome.
        const kept: AuthOutcome =
          outcome.ok && presented?.wanted ? { ...outcome, auth: presented.keep(outcome.auth, outcome.token) } : outcome;
        (req as unknown as Record<symbol, AuthOutcome>)[outcomeKey] = kept;
        // The MCP profile of DPoP: the body the proof named is checked when the transport reads it.
        if (outcome.ok && outcome.contentDigest !== undefined)
          expectBodyDigest(req, outcome.contentDigest, () =>
            authFailureAnswer(req, 'dpop_proof', challenge, 'content_digest does not match the body'),
          );
        next();
      };
      const outcome = authenticate(req);
      if (outcome instanceof Promise) outcome.then(record, next);
      else record(outcome);
    },
    enforce: function mcpAuthEnforce(req, res, next) {
      const outcome = outcomeOf(req);
      if (outcome === undefined || outcome.ok) next();
      else sendAuthFailure(req, res, outcome.failure, challenge, outcome.detail);
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
  const scope = (
    options.requiredScopes ??
    options.resourceMetadata?.scopesSupported ??
    options.server?.scopes ??
    []
  ).join(' ');
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
  return {
    metadataUrlOf: (req) => (servedAtRoot(appOf(req)) ? rootMetadataUrl(req) : mountMetadataUrl(req)),
    scope,
    preShared,
  };
}

/** The DPoP check of a router: nonces under its shared key, proof ids in its store's `replay` kind when tracked. */
function dpopCheckOf(options: ResolvedAuth, shared: SharedAuthState): DpopCheck {
  // Only the `replay` kind is written through this store.
  const limits = signInLimits({ replays: MAX_TRACKED_PROOFS });
  const replays = options.dpop.trackReplays
    ? (shared.store?.signIn?.(limits) ?? new MemorySignInStore(limits))
    : undefined;
  return createDpopCheck(options.dpop, shared.stateKey, replays);
}
