// What the authorization server knows of one OAuth client, however it learnt of it (pre-registered, DCR, or a metadata document).

/** The JWT bearer grant (RFC 7523 §2.1): how an enterprise client presents an ID-JAG at the token endpoint. */
export const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer' as const;

/** How a client's token requests prove who they are (RFC 7591 §2 `token_endpoint_auth_method`). */
export type ClientAuthMethod = 'none' | 'client_secret_basic' | 'client_secret_post' | 'private_key_jwt';

/** One OAuth client, checked. */
export interface OAuthClient {
  readonly clientId: string;
  /** How the router knows it: pre-registered by option, registered dynamically (RFC 7591), or a Client ID Metadata Document. */
  readonly source: 'preregistered' | 'dynamic' | 'metadata-document';
  /** Shown on the consent page; falls back to the client id. */
  readonly clientName?: string;
  readonly clientUri?: string;
  readonly logoUri?: string;
  /** Exact redirect URIs (OAuth 2.1 §2.3.1: compared as strings; loopback ports may vary, RFC 8252 §7.3). */
  readonly redirectUris: readonly string[];
  readonly tokenEndpointAuthMethod: ClientAuthMethod;
  /** SHA-256 (hex) of the client secret, for confidential clients; the secret itself is never kept. */
  readonly secretDigest?: string;
  /**
   * The public keys of a `private_key_jwt` client that registered or published them inline (RFC 7591 §2 `jwks`):
   * a JSON Web Key Set. A pre-registered client's keys are the directory's, read from its options.
   */
  readonly jwks?: Readonly<Record<string, unknown>>;
  /** Where a `private_key_jwt` client publishes its public keys (RFC 7591 §2 `jwks_uri`), fetched as its documents are. */
  readonly jwksUri?: string;
  /** `authorization_code`, and `refresh_token` when the client may refresh; `client_credentials` for a pre-registered machine client, the JWT bearer grant for ID-JAGs. */
  readonly grantTypes: readonly string[];
  /** Scopes the client registered (space-separated), if it named any. */
  readonly scope?: string;
  /** Pre-registered first-party clients only: no consent page (the operator vouches for them). */
  readonly firstParty: boolean;
  /** RFC 9449 §5.2 `dpop_bound_access_tokens`: every token request of this client must carry a DPoP proof. */
  readonly dpopBoundAccessTokens?: boolean;
}
