// The sign-in feature: with `auth.server`, the router is an OAuth 2.1 authorization server whose tokens it accepts.

import type { McpLogger } from '../../core/logger';
import type { FeatureHost, RouterFeature } from '../../edge/feature';
import { MemorySignInStore } from '../../edge/store/memory-sign-in-store';
import { createAuthorizationServer } from './authorization-server';
import { resolveAuthServerOptions, type AuthServerOptions, type ResolvedAuthServer } from './server-options';

/** The router's options the sign-in feature reads. */
export interface SignInRouterOptions {
  readonly auth?: { readonly server?: AuthServerOptions };
  /** The router's logger, checked by the router before its features resolve (console when absent). */
  readonly logger?: McpLogger;
}

/**
 * Installs the authorization server of `auth.server` as the router's token issuer: its endpoints under the mount
 * path, its metadata, and the check of the tokens it issues. Its state (clients, codes, refresh families, keys)
 * lives in the shared store when that keeps sign-in state, else in this process, each kind within its bound.
 */
export const signInFeature: RouterFeature<SignInRouterOptions, ResolvedAuthServer | undefined, object> = {
  key: 'sign-in',
  resolve: (options) =>
    options.auth?.server === undefined
      ? undefined
      : resolveAuthServerOptions(options.auth.server, options.logger ?? console),
  install(host: FeatureHost, config) {
    if (config !== undefined)
      host.issueTokens({
        issuer: config.issuer,
        scopes: config.scopes,
        start: (resourceOf, dpop) =>
          createAuthorizationServer(
            config,
            host.store?.signIn?.(config.limits) ?? new MemorySignInStore(config.limits),
            resourceOf,
            host.logger,
            dpop,
            host.publicUrls,
          ),
      });
    return { api: {} };
  },
};
