// The public keys of private_key_jwt clients (RFC 7523 §2.2): checked when registered or published, and found for an assertion.

import type { JWTVerifyGetKey } from 'jose';
import type { McpLogger } from '../../../core/logger';
import { BoundedMap } from '../../../core/bounded-map';
import { jose } from '../../../edge/security/jose';
import { PRIVATE_JWK_MEMBERS, type JwtKeyResolver } from '../../../edge/security/jose-types';
import { createRemoteJwks, DEFAULT_JWKS_COOLDOWN_MS, type FetchedKeySet } from '../../../edge/security/jwks';
import type { ClientAuthMethod, OAuthClient } from './client';
import { MAX_URI_LENGTH } from './client-metadata';
import { publicAddressOf, type AddressRules } from './address';
import { fetchPinned, type FetchBounds } from './document-fetch';
import { OAuthError } from '../oauth-error';

/** The most `jwks_uri` key sets of registered and document clients kept loaded; past it the least recently used is fetched again when next needed. */
export const MAX_REMOTE_KEY_SETS = 1_000;

/**
 * Why `set` cannot be a client's public key set, or undefined: it must be `{ keys: [...] }` with at least one key,
 * each an object with a `kty`, none symmetric (`oct`: it would verify HS256 assertions anyone reading the set could
 * make, RFC 8725 §2.1) and none private (a private key given to the server is a leaked key: refused, not dropped).
 */
export function keySetProblem(set: unknown): string | undefined {
  const keys = (set as { keys?: unknown } | null)?.keys;
  if (typeof set !== 'object' || set === null || !Array.isArray(keys))
    return 'is not a JSON Web Key Set ({ keys: [...] })';
  if (keys.length === 0) return 'holds no key';
  for (const [index, key] of keys.entries()) {
    if (typeof key !== 'object' || key === null || typeof (key as { kty?: unknown }).kty !== 'string')
      return `keys[${index}] is not a JSON Web Key (no kty)`;
    if ((key as { kty: string }).kty === 'oct') return `keys[${index}] is a symmetric key (kty oct): give public keys`;
    const secret = PRIVATE_JWK_MEMBERS.find((member) => Object.hasOwn(key, member));
    if (secret !== undefined)
      return `keys[${index}] holds private key material ('${secret}'): give the public key only`;
  }
  return undefined;
}

/** What a client's metadata says of its keys: `jwks` or `jwks_uri`, for a private_key_jwt client. */
export type CheckedKeys = Pick<OAuthClient, 'jwks' | 'jwksUri'>;

/**
 * The keys of client metadata (RFC 7591 §2), from a registration or a Client ID Metadata Document: a
 * `private_key_jwt` client names exactly one of `jwks` and `jwks_uri` ("MUST NOT both be present"); other clients'
 * keys are not kept (they authenticate otherwise).
 *
 * @param allowHttp - an http `jwks_uri` is accepted (with `clientMetadataDocuments.allowPrivateAddresses`: local development)
 * @throws {OAuthError} `invalid_client_metadata`
 */
export function checkClientKeys(
  metadata: Readonly<Record<string, unknown>>,
  method: ClientAuthMethod,
  allowHttp: boolean,
): CheckedKeys {
  if (method !== 'private_key_jwt') return {};
  const { jwks, jwks_uri: uri } = metadata;
  const refuse = (why: string): never => {
    throw new OAuthError('invalid_client_metadata', why);
  };
  if ((jwks === undefined) === (uri === undefined))
    refuse('a private_key_jwt client names exactly one of jwks and jwks_uri (RFC 7591 §2)');
  if (jwks !== undefined) {
    const problem = keySetProblem(jwks);
    if (problem !== undefined) refuse(`jwks ${problem}`);
    return { jwks: { keys: (jwks as { keys: unknown[] }).keys } };
  }
  if (typeof uri !== 'string' || uri.length > MAX_URI_LENGTH || !URL.canParse(uri))
    return refuse(`jwks_uri must be an absolute URL of at most ${MAX_URI_LENGTH} characters`);
  const url = new URL(uri);
  if (url.protocol !== 'https:' && !(allowHttp && url.protocol === 'http:')) refuse('jwks_uri must be an https URL');
  if (url.hash !== '' || url.username !== '' || url.password !== '')
    refuse('jwks_uri must not contain a fragment, a user name or a password');
  return { jwksUri: url.href };
}

/** How a client's `jwks_uri` is fetched: the Client ID Metadata Documents' bounds and address rules. */
export type KeyFetchRules = FetchBounds & AddressRules;

/**
 * Finds the keys an assertion of a client is verified with: a pre-registered client's from its options, a registered
 * or document client's inline `jwks`, or its `jwks_uri` — fetched from a checked public address (pinned, no
 * redirects, bounded, as metadata documents are), cached for its max-age, refetched once per cooldown for an
 * unknown `kid`, at most {@link MAX_REMOTE_KEY_SETS} sets kept.
 */
export class ClientKeys {
  private readonly remote = new BoundedMap<string, JWTVerifyGetKey>({ max: MAX_REMOTE_KEY_SETS, refreshOnGet: true });

  constructor(
    private readonly preregistered: ReadonlyMap<string, JwtKeyResolver>,
    private readonly rules: KeyFetchRules,
    private readonly logger: McpLogger,
  ) {}

  /** The key resolver of a client's assertions, or undefined when it has no keys. */
  keysOf(client: OAuthClient): JWTVerifyGetKey | undefined {
    // Made by readKeySet (jose's resolver), typed without jose's types for the published declarations.
    if (client.source === 'preregistered')
      return this.preregistered.get(client.clientId) as JWTVerifyGetKey | undefined;
    if (client.jwks !== undefined) return jose().createLocalJWKSet(client.jwks as never);
    if (client.jwksUri === undefined) return undefined;
    const known = this.remote.get(client.jwksUri);
    if (known !== undefined) return known;
    const keys = createRemoteJwks(new URL(client.jwksUri), {
      timeoutMs: this.rules.timeoutMs,
      maxBytes: this.rules.maxBytes,
      cooldownMs: DEFAULT_JWKS_COOLDOWN_MS,
      logger: this.logger,
      owner: `mcpRouter: client '${client.clientId}'`,
      get: (url) => this.get(url),
    });
    this.remote.set(client.jwksUri, keys);
    return keys;
  }

  /** One GET of a client's key set: its host checked (SSRF), then the pinned, bounded fetch of metadata documents. */
  private async get(url: URL): Promise<FetchedKeySet> {
    const fetched = await fetchPinned(url, await publicAddressOf(url, this.rules), this.rules);
    return { text: fetched.text, cacheControl: fetched.cacheControl };
  }
}
