// RouterFeature, the one seam a wing hangs on: its options resolved once, then installed on the narrow host the router lends it.

import type { IncomingMessage } from 'node:http';
import type { Router } from 'express';
import type { McpLogger } from '../core/logger';
import type { MethodTable } from '../core/protocol/methods/method-spec';
import type { Registry } from '../core/registry/registry';
import type { RequestDispatcher } from './host-routes/in-process';
import type { AddRouteTool } from './host-routes/route-tool-meta';
import type { TokenIssuer } from './security/token-issuer';
import type { PublicUrls } from './security/public-url';
import type { ServerEvent } from './store/server-events';
import type { McpStore } from './store/shared-store';
import type { McpObserver } from '../core/observe/observer';
import type { AuthInfo } from '../core/registry/request-context';

/** Who the router is, as features name it to others (an upstream's client info, an app's `ui://` authority). */
export interface ServerIdentity {
  readonly name: string;
  readonly version: string;
}

/** The host app's routes as tools: what the bridge feature offers the features that run routes (apps, decorators). */
export interface HostRoutes {
  /** Registers a route as a tool that runs through `dispatch` (traced as the bridge traces its own). */
  readonly addRouteTool: AddRouteTool;
  /** Dispatches in-process through the app serving the MCP router (learned on its first request; 503 before). */
  readonly throughHost: RequestDispatcher;
}

/**
 * The core services a feature may use, and nothing else: register items and extensions, add methods, a step before
 * the endpoint, the router's token issuer, server events, the store, the logger.
 */
export interface FeatureHost {
  readonly serverInfo: ServerIdentity;
  readonly logger: McpLogger;
  /** The shared store (`store` option), when given: what several instances share. */
  readonly store: McpStore | undefined;
  /** The `pageSize` option: the page size of every list a feature serves. */
  readonly pageSize: number;
  /** The router's items: tools, resources, templates, prompts, their names and extensions. */
  readonly registry: Registry;
  /** The router's observer (spans and metrics, when the telemetry feature records them): features wrap the calls they make for a request in its child spans. */
  readonly observer: McpObserver | undefined;
  /** The express.Router the endpoint is served from (`mcp.route(path)` is its own `route`). */
  readonly router: Router;
  /** Adds JSON-RPC methods to the dispatcher's table (a feature's own methods, e.g. `skills/list`). */
  addMethods(table: MethodTable): void;
  /** Announces a server event (a list change, a resource update) on every stream of every instance. */
  publish(event: ServerEvent): void;
  /** The `allowedHosts` decision every document naming the Host's origin makes first. */
  isAllowedHost(req: IncomingMessage): boolean;
  /** The router's public URLs (`publicUrl`, or made from each request): the one place a feature names the router's URL. */
  readonly publicUrls: PublicUrls;
  /** Runs before the endpoint answers a request (after the front door admitted it). */
  beforeEndpoint(step: (req: IncomingMessage) => void): void;
  /**
   * Starts keeping the bearer token each authenticated request presented, and gives the reader: the token behind a
   * request's `ctx.auth`, or undefined (no token, or `auth.fromRequest`). For the gateway's token exchange (RFC 8693
   * `subject_token`) only: handlers never see it.
   */
  presentedTokens(): (auth: AuthInfo | undefined) => string | undefined;
  /** Makes the router an authorization server: its endpoints, its metadata, and the check of the tokens it issues. */
  issueTokens(issuer: TokenIssuer): void;
  /** The host app's routes as tools, once a feature offers them ({@link FeatureHost.offerHostRoutes}); used at registration. */
  readonly hostRoutes: HostRoutes;
  /** Offers the host app's routes as tools to the other features (the bridge does, installed before them). */
  offerHostRoutes(routes: HostRoutes): void;
}

/** What installing a feature gives the router: the methods it adds to `mcp`, and how it ends with `mcp.close()`. */
export interface InstalledFeature<Api extends object> {
  readonly api: Api;
  readonly close?: () => Promise<void> | void;
}

/**
 * A wing of the router (gateway, sign-in, bridge, apps, skills, decorators, telemetry): `resolve` checks its part of
 * the router's options once at boot (throwing `McpConfigError` naming the option), `install` builds it on the host.
 * A feature imports the core and the edge, never another feature.
 *
 * @example
 * ```ts
 * export const skillsFeature: RouterFeature<object, true, { skills: McpRouterApi['skills'] }> = {
 *   key: 'skills',
 *   resolve: () => true,
 *   install: (host) => ({ api: { skills: (options) => serveSkills(options, host) } }),
 * };
 * ```
 */
export interface RouterFeature<Options extends object, Config, Api extends object> {
  /** A unique name: the feature's folder. */
  readonly key: string;
  /** Checks the feature's part of the router's options (the whole options object is passed). */
  resolve(options: Options): Config;
  /**
   * For a feature that observes the router (telemetry): its observer, made before the core is built, so that
   * sessions, the dispatcher and every other feature record through it (the host's `telemetry`).
   */
  observer?(config: Config): McpObserver | undefined;
  /** Builds the feature on the host with its resolved options. */
  install(host: FeatureHost, config: Config): InstalledFeature<Api>;
}
