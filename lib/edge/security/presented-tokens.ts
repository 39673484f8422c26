// The token each authenticated request presented, kept only for the features that ask (the gateway's token exchange): never on ctx.auth, never logged.

import type { AuthInfo } from '../../core/registry/request-context';

/**
 * Remembers, per authenticated caller, the bearer token it presented, keyed by the `AuthInfo` object its request
 * carries (`ctx.auth`). Nothing is kept until a feature asks for it ({@link PresentedTokens.reader}), so a router
 * without a token exchange pays nothing per request. A WeakMap: an entry lives as long as its `AuthInfo`.
 */
export class PresentedTokens {
  #byAuth: WeakMap<AuthInfo, string> | undefined;

  /** Whether a feature asked for the tokens: until then `keep` is never needed. */
  get wanted(): boolean {
    return this.#byAuth !== undefined;
  }

  /**
   * The caller to give the request: `auth` itself, or, when the same `AuthInfo` object already stands for another
   * token (a verify callback returning one shared object), a copy of its own, so that one request's token is never
   * another's.
   */
  keep(auth: AuthInfo, token: string | undefined): AuthInfo {
    const byAuth = this.#byAuth;
    if (byAuth === undefined || token === undefined) return auth;
    const known = byAuth.get(auth);
    if (known === token) return auth;
    const own = known === undefined ? auth : Object.freeze({ ...auth });
    byAuth.set(own, token);
    return own;
  }

  /** Starts keeping tokens; the reader gives the token the request of `auth` presented, or undefined (none, `fromRequest`). */
  reader(): (auth: AuthInfo | undefined) => string | undefined {
    const byAuth = (this.#byAuth ??= new WeakMap());
    return (auth) => (auth === undefined ? undefined : byAuth.get(auth));
  }
}
