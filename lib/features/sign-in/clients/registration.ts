// Dynamic Client Registration (RFC 7591 §3): checks a request, issues the client's id and secret, keeps it in the store.

import { randomBytes } from 'node:crypto';
import type { SignInStore } from '../../../edge/store/sign-in-store';
import type { OAuthClient } from './client';
import { checkClientMetadata } from './client-metadata';
import type { RegistrationOptions } from './client-options';
import { secretDigest } from './preregistered-clients';
import { checkClientKeys } from './client-keys';

/** The methods a registered client gets a secret for (RFC 7591 §3.2.1). */
const SECRET_METHODS = new Set(['client_secret_basic', 'client_secret_post']);

/**
 * Registers a client (RFC 7591 §3.1): the metadata checked, a fresh `client_id`, and for a client that
 * authenticates with a secret a fresh `client_secret` that is answered once and kept only as its SHA-256. Public
 * clients (`none`, what MCP clients send) and `private_key_jwt` clients (their `jwks` or `jwks_uri` kept) get none.
 *
 * @param allowHttpKeys - an http `jwks_uri` is accepted (local development, as for metadata documents)
 * @returns the RFC 7591 §3.2.1 response body
 * @throws {OAuthError} `invalid_client_metadata` or `invalid_redirect_uri`
 */
export async function registerClient(
  metadata: unknown,
  options: Readonly<Required<RegistrationOptions>>,
  store: SignInStore,
  allowHttpKeys = false,
  now = Date.now(),
): Promise<Record<string, unknown>> {
  // RFC 7591 §2: token_endpoint_auth_method defaults to client_secret_basic when the request names none.
  const checked = checkClientMetadata(metadata, 'client_secret_basic');
  const keys = checkClientKeys(metadata as Record<string, unknown>, checked.tokenEndpointAuthMethod, allowHttpKeys);
  const clientId = randomBytes(16).toString('base64url');
  const secret = SECRET_METHODS.has(checked.tokenEndpointAuthMethod)
    ? randomBytes(32).toString('base64url')
    : undefined;
  const client: OAuthClient = {
    ...checked,
    ...keys,
    clientId,
    source: 'dynamic',
    firstParty: false,
    secretDigest: secret && secretDigest(secret),
  };
  await store.set('client', clientId, { ...client }, options.clientTtlMs);
  const issuedAt = Math.floor(now / 1000);
  return {
    client_id: clientId,
    client_id_issued_at: issuedAt,
    // RFC 7591 §3.2.1: client_secret_expires_at is REQUIRED with a secret; 0 means it does not expire.
    ...(secret === undefined ? {} : { client_secret: secret, client_secret_expires_at: 0 }),
    redirect_uris: client.redirectUris,
    grant_types: client.grantTypes,
    response_types: ['code'],
    token_endpoint_auth_method: client.tokenEndpointAuthMethod,
    ...(client.clientName === undefined ? {} : { client_name: client.clientName }),
    ...(client.clientUri === undefined ? {} : { client_uri: client.clientUri }),
    ...(client.logoUri === undefined ? {} : { logo_uri: client.logoUri }),
    ...(client.scope === undefined ? {} : { scope: client.scope }),
    ...(client.jwks === undefined ? {} : { jwks: client.jwks }),
    ...(client.jwksUri === undefined ? {} : { jwks_uri: client.jwksUri }),
    ...(client.dpopBoundAccessTokens === true && { dpop_bound_access_tokens: true }),
  };
}

/**
 * A registered client by id, found for a use (an authorization, a code, a refresh): its record is kept for another
 * `clientTtlMs` and becomes the most recently used, the last that `maxClients` evicts (idle registrations go first).
 */
export async function findRegisteredClient(
  clientId: string,
  options: Readonly<Required<RegistrationOptions>>,
  store: SignInStore,
): Promise<OAuthClient | undefined> {
  const record = await store.use('client', clientId, options.clientTtlMs);
  return record?.source === 'dynamic' ? (record as unknown as OAuthClient) : undefined;
}

/**
 * The registered client a code or refresh family kept (see `Grant.registration`), when it is one: a record of a
 * dynamically registered client with this id, as {@link registerClient} wrote it (the secret as its digest).
 */
export function keptRegistration(clientId: string, kept: unknown): OAuthClient | undefined {
  const client = kept as Partial<OAuthClient> | undefined;
  return client?.source === 'dynamic' && client.clientId === clientId ? (client as OAuthClient) : undefined;
}

/**
 * Writes a registered client back into the store, the most recently used again, when the store lost it (evicted by
 * `maxClients`, or expired) while a code or refresh family issued to it lives: its holder keeps working.
 */
export async function restoreRegisteredClient(
  client: OAuthClient,
  options: Readonly<Required<RegistrationOptions>>,
  store: SignInStore,
): Promise<void> {
  await store.set('client', client.clientId, { ...client }, options.clientTtlMs);
}
