// What every endpoint of one authorization server shares: its options, store, clients, codes and refresh tokens, keys, grants, and where it is.

import type { PublicUrls } from '../../edge/security/public-url';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SignInStore } from '../../edge/store/sign-in-store';
import type { ClientDirectory } from './clients/clients';
import type { CodesAndRefreshTokens } from './tokens/codes-and-refresh';
import type { IdJagGrant } from './tokens/id-jag';
import type { SigningKeys } from './tokens/keys';
import type { OAuthError } from './oauth-error';
import type { ResolvedAuthServer } from './server-options';
import type { DpopCheck } from '../../edge/security/dpop';

/** One authorization server's parts, made once by `createAuthorizationServer`. */
export interface ServerContext {
  readonly options: ResolvedAuthServer;
  readonly store: SignInStore;
  readonly clients: ClientDirectory;
  readonly codesAndRefresh: CodesAndRefreshTokens;
  readonly keys: SigningKeys;
  /** The ID-JAG grant, when `trustedIdps` names an IdP. */
  readonly idJag: IdJagGrant | undefined;
  /** The issuer for a request: `auth.server.issuer`, else `<origin><mount path>` (RFC 8414 §2). */
  readonly issuerOf: (req: IncomingMessage) => string;
  /**
   * The issuer a signed claim (a client assertion's or ID-JAG's `aud`, a token request proof's `htu`) is checked
   * against: `auth.server.issuer`, else the Host's only when the operator vouches for the Host (`createHostVouch`);
   * undefined otherwise, and such claims are refused: a Host the client chose would name any server it likes.
   */
  readonly selfOf: (req: IncomingMessage) => string | undefined;
  /** The router's public URLs: what a document made from the request varies with. */
  readonly urls: PublicUrls;
  /** The MCP resource for a request (RFC 8707, RFC 9728 `resource`): the tokens' audience. */
  readonly resourceOf: (req: IncomingMessage) => string;
  /** The router's DPoP check (RFC 9449): token requests' proofs, with the MCP endpoint's nonces. */
  readonly dpop: DpopCheck;
  /** Answers an OAuth error as JSON (CORS-readable where the endpoint is). */
  readonly sendError: (res: ServerResponse, err: OAuthError) => void;
}
