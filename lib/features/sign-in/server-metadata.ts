// Authorization server metadata (RFC 8414 §2), also in the OpenID Provider form clients accept, and where each is served.

import { JWT_BEARER_GRANT } from './clients/client';
import { DPOP_ALGORITHMS } from '../../edge/security/dpop';
import type { ClientDirectory } from './clients/clients';
import { ID_JAG_PROFILE } from './tokens/id-jag';
import type { ResolvedAuthServer } from './server-options';

/** The two well-known documents, under the issuer (OIDC path appending) or at the root (RFC 8414 §3.1 path insertion). */
export const SERVER_METADATA_PATHS = [
  '/.well-known/oauth-authorization-server',
  '/.well-known/openid-configuration',
] as const;

/** Every endpoint, relative to the issuer. */
export const ENDPOINTS = {
  authorize: '/oauth/authorize',
  token: '/oauth/token',
  register: '/oauth/register',
  revoke: '/oauth/revoke',
  jwks: '/oauth/jwks',
  consent: '/oauth/consent',
  callback: '/oauth/callback',
} as const;

/**
 * The metadata document of an issuer. One document serves both forms: it carries what RFC 8414 requires and what the
 * MCP clients' OpenID Provider schema requires (`jwks_uri`, `subject_types_supported`,
 * `id_token_signing_alg_values_supported`), though the router issues access tokens only, never ID tokens.
 */
export function serverMetadata(
  issuer: string,
  options: ResolvedAuthServer,
  clients: ClientDirectory,
  signingAlgorithms: readonly string[],
): Record<string, unknown> {
  const { authMethods, authSigningAlgorithms, registration, metadataDocuments } = clients.metadata;
  const document: Record<string, unknown> = {
    issuer,
    authorization_endpoint: `${issuer}${ENDPOINTS.authorize}`,
    token_endpoint: `${issuer}${ENDPOINTS.token}`,
    jwks_uri: `${issuer}${ENDPOINTS.jwks}`,
  };
  if (registration) document.registration_endpoint = `${issuer}${ENDPOINTS.register}`;
  Object.assign(document, {
    revocation_endpoint: `${issuer}${ENDPOINTS.revoke}`,
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: clients.metadata.grantTypes,
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: authMethods,
    revocation_endpoint_auth_methods_supported: authMethods,
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: signingAlgorithms,
    // RFC 9207 §3: the authorization response carries `iss`.
    authorization_response_iss_parameter_supported: true,
    client_id_metadata_document_supported: metadataDocuments,
    // RFC 9449 §5.1 (and the MCP DPoP profile): token requests may carry a proof signed with these.
    dpop_signing_alg_values_supported: DPOP_ALGORITHMS,
  });
  if (options.scopes.length > 0) document.scopes_supported = options.scopes;
  // RFC 8414 §2: the algorithms of private_key_jwt assertions, listed with the method (asymmetric only, RFC 7523).
  if (authSigningAlgorithms !== undefined)
    Object.assign(document, {
      token_endpoint_auth_signing_alg_values_supported: authSigningAlgorithms,
      revocation_endpoint_auth_signing_alg_values_supported: authSigningAlgorithms,
    });
  // The ID-JAG draft §7.2: the profile is named only when an IdP is trusted and a client may redeem its ID-JAGs.
  if (clients.metadata.grantTypes.includes(JWT_BEARER_GRANT))
    document.authorization_grant_profiles_supported = [ID_JAG_PROFILE];
  return document;
}
