// Where the IdP's endpoints are: its discovery document (read once, cached) or the options' explicit URLs.

import { idTokenCheck } from './id-token';
import type { IdTokenCheck } from './id-token';
import { LoginError } from '../browser/login';
import { callProvider } from './idp-http';
import type { IdpConfig } from './oidc-idp-options';

/** The IdP, as the login step talks to it. */
export interface IdpEndpoints {
  /** The configured issuer; without one (plain OAuth 2.0), the authorization endpoint's origin. */
  readonly issuer: string;
  readonly authorizationEndpoint: string;
  readonly tokenEndpoint: string;
  readonly userinfoEndpoint: string | undefined;
  readonly tokenAuthMethod: 'client_secret_basic' | 'client_secret_post' | 'none';
  /** RFC 9207 §2.4: the provider says it sends `iss` with every authorization response, so one without it is refused. */
  readonly issRequired: boolean;
  /** The ID token check (OIDC); undefined for a plain OAuth 2.0 provider, whose ID tokens (if any) are not read. */
  readonly idToken: IdTokenCheck | undefined;
}

/** The discovery document's URL: OpenID Connect Discovery §4.1 appends to the issuer without its trailing slash. */
const discoveryUrl = (issuer: string): string => `${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`;

/** An endpoint URL from the discovery document: as secure as the issuer (an https issuer names https endpoints). */
function endpointOf(document: Readonly<Record<string, unknown>>, field: string, issuer: string): string | undefined {
  const value = document[field];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !URL.canParse(value) || new URL(value).protocol !== new URL(issuer).protocol) {
    throw new LoginError('server_error', `the provider's discovery document has an unusable '${field}'`);
  }
  return value;
}

/** The token endpoint authentication: the option, else what discovery lists (basic first: RFC 8414 §2's default). */
function authMethodOf(config: IdpConfig, supported: unknown): IdpEndpoints['tokenAuthMethod'] {
  if (config.clientSecret === undefined) return 'none';
  if (config.tokenAuthMethod !== undefined) return config.tokenAuthMethod;
  if (!Array.isArray(supported)) return config.issuer === undefined ? 'client_secret_post' : 'client_secret_basic';
  return supported.includes('client_secret_basic') || !supported.includes('client_secret_post')
    ? 'client_secret_basic'
    : 'client_secret_post';
}

async function discover(config: IdpConfig & { issuer: string }): Promise<IdpEndpoints> {
  const { status, body } = await callProvider(
    "the provider's discovery document",
    discoveryUrl(config.issuer),
    {},
    config.timeoutMs,
  );
  if (status !== 200) throw new LoginError('server_error', `the provider's discovery document answered HTTP ${status}`);
  // OpenID Connect Discovery §4.3: the document's issuer is exactly the one it was fetched for (mix-up defence).
  if (body.issuer !== config.issuer) {
    throw new LoginError(
      'server_error',
      `the provider's discovery document names the issuer ${JSON.stringify(body.issuer)}, not ${JSON.stringify(config.issuer)}`,
    );
  }
  const authorizationEndpoint =
    config.authorizationEndpoint ?? endpointOf(body, 'authorization_endpoint', config.issuer);
  const tokenEndpoint = config.tokenEndpoint ?? endpointOf(body, 'token_endpoint', config.issuer);
  const jwksUri = endpointOf(body, 'jwks_uri', config.issuer);
  if (authorizationEndpoint === undefined || tokenEndpoint === undefined || jwksUri === undefined) {
    throw new LoginError(
      'server_error',
      "the provider's discovery document lacks 'authorization_endpoint', 'token_endpoint' or 'jwks_uri'",
    );
  }
  return {
    issuer: config.issuer,
    authorizationEndpoint,
    tokenEndpoint,
    userinfoEndpoint: config.userinfoEndpoint ?? endpointOf(body, 'userinfo_endpoint', config.issuer),
    tokenAuthMethod: authMethodOf(config, body.token_endpoint_auth_methods_supported),
    issRequired: body.authorization_response_iss_parameter_supported === true,
    idToken: idTokenCheck({
      issuer: config.issuer,
      clientId: config.clientId,
      jwksUri,
      advertisedAlgorithms: body.id_token_signing_alg_values_supported,
      timeoutMs: config.timeoutMs,
    }),
  };
}

/**
 * The provider's endpoints, resolved at first use and kept: a discovery document is read once (a failed read is
 * tried again on the next sign-in, not kept), and several sign-ins waiting for it share one read.
 */
export function idpEndpoints(config: IdpConfig): () => Promise<IdpEndpoints> {
  const { issuer, authorizationEndpoint, tokenEndpoint, userinfoEndpoint } = config;
  if (issuer === undefined) {
    // Plain OAuth 2.0: resolveIdpOptions() made all three endpoints required.
    const endpoints: IdpEndpoints = {
      issuer: new URL(authorizationEndpoint as string).origin,
      authorizationEndpoint: authorizationEndpoint as string,
      tokenEndpoint: tokenEndpoint as string,
      userinfoEndpoint,
      tokenAuthMethod: authMethodOf(config, undefined),
      issRequired: false,
      idToken: undefined,
    };
    return async () => endpoints;
  }
  let resolved: Promise<IdpEndpoints> | undefined;
  return () => {
    resolved ??= discover({ ...config, issuer }).catch((err: unknown) => {
      resolved = undefined;
      throw err;
    });
    return resolved;
  };
}
