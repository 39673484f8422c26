// `auth.server.clients`: the clients the operator registers by option, their grants and credentials, checked at boot.

import { createHash } from 'node:crypto';
import type { JwtKeyResolver } from '../../../edge/security/jose-types';
import { invalidOption, McpConfigError, type OptionKeys } from '../../../options/config-error';
import { OptionReader } from '../../../options/option-reader';
import type { McpLogger } from '../../../core/logger';
import { readKeySet } from '../../../edge/security/jwks';
import { JWT_BEARER_GRANT, type OAuthClient } from './client';
import { redirectUriProblem } from './client-metadata';
import { keySetProblem } from './client-keys';

/**
 * The grants a pre-registered client may be allowed (`auth.server.clients[i].grants`): the browser sign-in and its
 * refresh, `client_credentials` for a machine client (RFC 6749 §4.4; MCP's client-credentials extension), and the
 * JWT bearer grant for an enterprise client presenting ID-JAGs (SEP-990, `auth.server.trustedIdps`).
 */
export const CLIENT_GRANTS: readonly ClientGrant[] = [
  'authorization_code',
  'refresh_token',
  'client_credentials',
  JWT_BEARER_GRANT,
];
/** One grant a pre-registered client may be allowed. */
export type ClientGrant =
  'authorization_code' | 'refresh_token' | 'client_credentials' | 'urn:ietf:params:oauth:grant-type:jwt-bearer';
/** The grants of a pre-registered client that names none: the browser sign-in and refresh. */
export const DEFAULT_CLIENT_GRANTS: readonly ClientGrant[] = ['authorization_code', 'refresh_token'];

/** A client the operator registers by option (OAuth 2.1 §2: registration by other means). */
export interface PreRegisteredClient {
  /** The `client_id` the client sends. */
  clientId: string;
  /**
   * Its secret: a confidential client authenticates with it (Basic or in the form). At most one of `clientSecret`,
   * `jwks` and `jwksUri`; with none of them, a public client (PKCE only). Defaults to none.
   */
  clientSecret?: string;
  /**
   * Its public keys, inline (a JSON Web Key Set): the client authenticates with `private_key_jwt`, a JWT it signs
   * (RFC 7523 §2.2; recommended for machine clients). Private or symmetric keys are refused at boot. Defaults to none.
   */
  jwks?: {
    /** The keys, each a public JWK as JSON. */
    keys: Array<Record<string, unknown>>;
  };
  /** Where it publishes its public keys (https, or http on loopback): `private_key_jwt`, as `jwks`. Defaults to none. */
  jwksUri?: string;
  /**
   * The grants it may use: `'authorization_code'` (a user signs in through the browser), `'refresh_token'`,
   * `'client_credentials'` (the client acts as itself, no user), `'urn:ietf:params:oauth:grant-type:jwt-bearer'` (an
   * ID-JAG from a trusted IdP, `auth.server.trustedIdps`). The last two need `clientSecret`, `jwks` or `jwksUri`.
   * Defaults to `['authorization_code', 'refresh_token']`.
   */
  grants?: ClientGrant[];
  /**
   * Its exact redirect URIs: https, http on loopback only, or a native app's private-use scheme; no fragments.
   * Required when `grants` has `'authorization_code'`.
   */
  redirectUris?: string[];
  /** Shown on the consent page. Defaults to the client id. */
  name?: string;
  /** The operator's own client: no consent page is shown for it. Defaults to `false`. */
  firstParty?: boolean;
  /** The scopes it may ask for, space-separated. Defaults to none named (any the server supports). */
  scope?: string;
  /**
   * Its tokens are always DPoP-bound (RFC 9449 §5.2 `dpop_bound_access_tokens`): a token request without a proof is
   * refused. Defaults to `false` (bound when it sends a proof).
   */
  dpopBoundAccessTokens?: boolean;
}

const PREFIX = 'auth.server.';
const CLIENT_KEYS: OptionKeys<PreRegisteredClient> = {
  clientId: true,
  clientSecret: true,
  jwks: true,
  jwksUri: true,
  grants: true,
  redirectUris: true,
  name: true,
  firstParty: true,
  scope: true,
  dpopBoundAccessTokens: true,
};
/** SHA-256 (hex) of a client secret: what is kept of it, and what a presented secret is compared with. */
export function secretDigest(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

type ClientRead = OptionReader<PreRegisteredClient>;

/** The grants a client may use, each among {@link CLIENT_GRANTS}, each once. */
function resolveGrants(read: ClientRead): readonly ClientGrant[] {
  const expected = `a non-empty array of ${CLIENT_GRANTS.map((grant) => `'${grant}'`).join(', ')}`;
  const grants = read.raw('grants', DEFAULT_CLIENT_GRANTS as ClientGrant[]);
  if (
    !Array.isArray(grants) ||
    grants.length === 0 ||
    !grants.every((grant) => (CLIENT_GRANTS as readonly unknown[]).includes(grant))
  )
    throw read.invalid('grants', expected);
  return Object.freeze([...new Set(grants)]);
}

/** The exact redirect URIs: required (non-empty) for the authorization_code grant, checked whenever given. */
function resolveRedirectUris(read: ClientRead, required: boolean): readonly string[] {
  const redirectUris = read.raw('redirectUris');
  if (redirectUris === undefined && !required) return Object.freeze([]);
  if (!Array.isArray(redirectUris) || redirectUris.length === 0)
    throw read.invalid(
      'redirectUris',
      required
        ? "a non-empty array of URLs (the client has the 'authorization_code' grant)"
        : 'a non-empty array of URLs',
    );
  redirectUris.forEach((uri: unknown, i) => {
    const problem = redirectUriProblem(uri);
    if (problem !== undefined)
      throw new McpConfigError(
        'ERR_MCP_INVALID_OPTION',
        `option '${read.pathOf('redirectUris')}[${i}]' ${problem}, got ${JSON.stringify(uri)}`,
      );
  });
  return Object.freeze([...(redirectUris as string[])]);
}

/** How a pre-registered client authenticates: a secret, its keys (`private_key_jwt`), or nothing (public); at most one. */
function resolveCredentials(
  read: ClientRead,
  clientId: string,
  logger: McpLogger,
): Pick<OAuthClient, 'tokenEndpointAuthMethod' | 'secretDigest'> & { keys?: JwtKeyResolver } {
  const given = (['clientSecret', 'jwks', 'jwksUri'] as const).filter((key) => read.raw(key) !== undefined);
  if (given.length > 1)
    throw new McpConfigError(
      'ERR_MCP_INVALID_OPTION',
      `option '${read.pathOf(given[0] as 'clientSecret')}' and '${read.pathOf(given[1] as 'jwks')}' are two ways to authenticate: give one of clientSecret, jwks, jwksUri`,
    );
  const clientSecret = read.string('clientSecret', { nonEmpty: true });
  // A pre-registered client registers no method: one with a secret may use either secret method (RFC 6749 §2.3.1).
  if (clientSecret !== undefined)
    return { tokenEndpointAuthMethod: 'client_secret_basic', secretDigest: secretDigest(clientSecret) };
  if (given.length === 0) return { tokenEndpointAuthMethod: 'none' };
  const problem = read.raw('jwks') === undefined ? undefined : keySetProblem(read.raw('jwks'));
  if (problem !== undefined) throw read.invalid('jwks', `a JSON Web Key Set of public keys; it ${problem}`, '…');
  return {
    tokenEndpointAuthMethod: 'private_key_jwt',
    keys: readKeySet(read, logger, `mcpRouter: client '${clientId}'`),
  };
}

/** One pre-registered client, checked: `auth.server.clients[<index>]`. */
function resolveClient(
  client: unknown,
  index: number,
  logger: McpLogger,
): { client: OAuthClient; keys?: JwtKeyResolver } {
  const read = OptionReader.of(client as PreRegisteredClient, `${PREFIX}clients[${index}]`, CLIENT_KEYS);
  const clientId = read.raw('clientId');
  if (typeof clientId !== 'string' || clientId.length === 0 || clientId.length > 255)
    throw read.invalid('clientId', 'a string of 1 to 255 characters');
  const grants = resolveGrants(read);
  const redirectUris = resolveRedirectUris(read, grants.includes('authorization_code'));
  const { keys, ...credentials } = resolveCredentials(read, clientId, logger);
  // RFC 6749 §4.4: "The client credentials grant type MUST only be used by confidential clients"; so is an ID-JAG's
  // (draft-ietf-oauth-identity-assertion-authz-grant §8.1): a public client signs in through the browser.
  const confidentialOnly = grants.find((grant) => grant === 'client_credentials' || grant === JWT_BEARER_GRANT);
  if (confidentialOnly !== undefined && credentials.tokenEndpointAuthMethod === 'none')
    throw read.invalid(
      'grants',
      `'${confidentialOnly}' only for a confidential client: give it clientSecret, jwks or jwksUri`,
      grants,
    );
  const resolved: OAuthClient = Object.freeze({
    clientId,
    source: 'preregistered',
    clientName: read.string('name'),
    redirectUris,
    ...credentials,
    grantTypes: grants,
    scope: read.string('scope'),
    firstParty: read.boolean('firstParty', false),
    ...(read.boolean('dpopBoundAccessTokens', false) && { dpopBoundAccessTokens: true }),
  });
  return keys === undefined ? { client: resolved } : { client: resolved, keys };
}

/** `auth.server.clients`: the pre-registered clients by id, each id listed once, and the key sets of those that have keys. */
export function resolvePreRegisteredClients(
  list: unknown,
  logger: McpLogger,
): { clients: Map<string, OAuthClient>; keySets: Map<string, JwtKeyResolver> } {
  if (!Array.isArray(list)) throw invalidOption(`${PREFIX}clients`, 'an array of clients', list);
  const clients = new Map<string, OAuthClient>();
  const keySets = new Map<string, JwtKeyResolver>();
  list.forEach((entry: unknown, index) => {
    const { client, keys } = resolveClient(entry, index, logger);
    if (clients.has(client.clientId))
      throw new McpConfigError(
        'ERR_MCP_DUPLICATE',
        `option '${PREFIX}clients[${index}].clientId': '${client.clientId}' is listed twice`,
      );
    clients.set(client.clientId, client);
    if (keys !== undefined) keySets.set(client.clientId, keys);
  });
  return { clients, keySets };
}
