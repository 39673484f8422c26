// The router's features, in install order, and the host they are installed on: everything a wing adds to mcpRouter().

import type { IncomingMessage } from 'node:http';
import type { Router } from 'express';
import type { FeatureHost, HostRoutes, InstalledFeature, RouterFeature } from './edge/feature';
import { createHostMatcher } from './edge/security/origin-host';
import { createPublicUrls } from './edge/security/public-url';
import type { TokenIssuer } from './edge/security/token-issuer';
import type { PresentedTokens } from './edge/security/presented-tokens';
import { appsFeature } from './features/apps';
import { bridgeFeature } from './features/bridge';
import { decoratorsFeature } from './features/decorators';
import { gatewayFeature } from './features/gateway';
import { signInFeature } from './features/sign-in';
import { skillsFeature } from './features/skills';
import { telemetryFeature } from './features/telemetry';
import type { McpObserver } from './core/observe/observer';
import type { McpRouterOptions } from './options';
import type { ResolvedConfig } from './resolved-config';
import type { RouterCore } from './router-core';

/**
 * Every feature, in the order they are installed: an observer first (the others record through it), the bridge
 * before the features that run the host app's routes.
 */
const FEATURES = [
  telemetryFeature,
  signInFeature,
  bridgeFeature,
  appsFeature,
  decoratorsFeature,
  skillsFeature,
  gatewayFeature,
] as const;

/** What every feature adds to `mcp`, together (McpRouterApi documents each method). */
export type FeatureApi = UnionToIntersection<ReturnType<(typeof FEATURES)[number]['install']>['api']>;
type UnionToIntersection<U> = (U extends unknown ? (union: U) => void : never) extends (all: infer I) => void
  ? I
  : never;

/** The features' view of the host app's routes before a feature offers them: a misordered install fails loudly. */
const notOffered = (): never => {
  throw new Error('mcpRouter: no feature offers host routes (the bridge is installed first)');
};
const NO_HOST_ROUTES: HostRoutes = { addRouteTool: notOffered, throughHost: notOffered };

type AnyFeature = RouterFeature<McpRouterOptions, unknown, object>;

/** The host's services that come from the core; the rest are what features give each other and the router. */
type LentServices = Omit<FeatureHost, 'beforeEndpoint' | 'issueTokens' | 'hostRoutes' | 'offerHostRoutes'>;

/** The features with their options checked: made before the core, so a misconfiguration throws at boot. */
export class ResolvedFeatures {
  readonly #resolved: ReadonlyArray<{ readonly feature: AnyFeature; readonly config: unknown }>;

  constructor(options: McpRouterOptions) {
    this.#resolved = (FEATURES as readonly AnyFeature[]).map((feature) => ({
      feature,
      config: feature.resolve(options),
    }));
  }

  /** The observer a feature offers (telemetry), for the core and the other features to record through. */
  observer(): McpObserver | undefined {
    for (const { feature, config } of this.#resolved) {
      const observer = feature.observer?.(config);
      if (observer !== undefined) return observer;
    }
    return undefined;
  }

  /** Installs every feature on one host; what they contributed to the router is read back from the result. */
  install(host: LentServices): InstalledFeatures {
    const installed = new InstalledFeatures();
    let hostRoutes = NO_HOST_ROUTES;
    const full: FeatureHost = {
      ...host,
      beforeEndpoint: (step) => installed.steps.push(step),
      issueTokens: (issuer) => {
        installed.issuer = issuer;
      },
      get hostRoutes() {
        return hostRoutes;
      },
      offerHostRoutes: (routes) => {
        hostRoutes = routes;
      },
    };
    for (const { feature, config } of this.#resolved) installed.add(feature.install(full, config));
    return installed;
  }
}

/** What the installed features gave the router. */
export class InstalledFeatures {
  /** The router's own authorization server, when a feature made it one. */
  issuer: TokenIssuer | undefined;
  /** What runs before the endpoint answers. */
  readonly steps: Array<(req: IncomingMessage) => void> = [];
  /** Every method the features add to `mcp`. */
  readonly api: Record<string, unknown> = {};
  readonly #closes: Array<() => Promise<void> | void> = [];

  add(feature: InstalledFeature<object>): void {
    Object.assign(this.api, feature.api);
    if (feature.close) this.#closes.push(feature.close);
  }

  /** Runs the steps before the endpoint, in install order. */
  readonly beforeEndpoint = (req: IncomingMessage): void => {
    for (const step of this.steps) step(req);
  };

  /** Ends every feature, in install order. */
  async close(): Promise<void> {
    for (const close of this.#closes) await close();
  }
}

/** The host the router lends its features: the core's services, nothing of its Express layer but the router. */
export function featureHost(
  config: ResolvedConfig,
  core: RouterCore,
  router: Router,
  observer: McpObserver | undefined,
  presented: PresentedTokens,
): LentServices {
  return {
    serverInfo: { name: String(config.serverInfo.name), version: String(config.serverInfo.version) },
    logger: config.logger,
    store: config.store,
    pageSize: config.pageSize,
    registry: core.registry,
    observer,
    router,
    addMethods: (table) => core.dispatcher.extend(table),
    publish: core.publish,
    isAllowedHost: createHostMatcher(config.allowedHosts, config.publicUrl && new URL(config.publicUrl).host),
    publicUrls: createPublicUrls({
      publicUrl: config.publicUrl,
      allowedHosts: config.allowedHosts,
      logger: config.logger,
    }),
    presentedTokens: () => presented.reader(),
  };
}
