// TokenIssuer: what the router's own authorization server (the sign-in feature) gives authentication, and what it is given.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AuthInfo } from '../../core/registry/request-context';
import type { ExpressRequest } from './public-url';
import type { DpopCheck } from './dpop';

/** An Express-style handler of the issuer's endpoints: `req` carries Express's `path` and `baseUrl`. */
export type IssuerHandler = (req: ExpressRequest, res: ServerResponse, next: (err?: unknown) => void) => void;

/** The authorization server running under the router's mount path. */
export interface IssuerEndpoints {
  /** Serves the endpoints and the metadata under the mount path; hands every other path on. */
  readonly handle: IssuerHandler;
  /** True for a path (under the mount path) that `handle` answers. */
  readonly serves: (path: string) => boolean;
  /** For `mcp.authServerMetadata`: the metadata at the app's root (RFC 8414 §3.1 path insertion). */
  readonly rootMetadata: IssuerHandler;
  /** Checks an access token it issued for this resource: the caller, or undefined. */
  readonly verify: (token: string, req: IncomingMessage) => Promise<AuthInfo | undefined>;
}

/** What authentication needs of the router's own authorization server (`auth.server`). */
export interface TokenIssuer {
  /** Its fixed public issuer URL, when configured; else the URL the client used, per request. */
  readonly issuer: string | undefined;
  /** The scopes it grants (what challenges and the protected-resource metadata name). */
  readonly scopes: readonly string[];
  /**
   * Starts it, given the resource (the tokens' audience) of a request, and the router's DPoP check (RFC 9449 §5:
   * the token endpoint binds tokens to the key of a proof, with the same nonces as the MCP endpoint).
   */
  start(resourceOf: (req: IncomingMessage) => string, dpop: DpopCheck): IssuerEndpoints;
}
