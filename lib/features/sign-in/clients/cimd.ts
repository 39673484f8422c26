// Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document; MCP 2025-11-25): fetch safely, check, cache.

import type { SignInStore } from '../../../edge/store/sign-in-store';
import type { OAuthClient } from './client';
import { checkClientMetadata } from './client-metadata';
import { checkClientKeys } from './client-keys';
import type { ClientMetadataDocumentOptions } from './client-options';
import { AddressRefusedError, publicAddressOf } from './address';
import { DocumentFetchError, fetchPinned } from './document-fetch';
import { OAuthError } from '../oauth-error';

/** How long a document is cached when its answer says nothing (CIMD "Metadata Caching": SHOULD follow HTTP caching). */
export const DEFAULT_DOCUMENT_TTL_MS = 5 * 60 * 1000;
/** The longest a document is cached, whatever its `max-age`: a client's changes show within a day. */
export const MAX_DOCUMENT_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * True when `clientId` names a metadata document: an https URL with a path (CIMD "Client Identifier"), or an http
 * one when `allowHttp` (local development). Other ids are looked up as registered clients.
 */
export function isDocumentClientId(clientId: string, allowHttp: boolean): boolean {
  if (!(clientId.startsWith('https://') || (allowHttp && clientId.startsWith('http://'))) || !URL.canParse(clientId))
    return false;
  return new URL(clientId).pathname !== '/';
}

/** How long to cache a document from its `Cache-Control` (RFC 9111 §5.2.2), within [0, 24 h]; 0 for no-store/no-cache. */
export function documentTtlMs(cacheControl: string | undefined): number {
  if (cacheControl === undefined) return DEFAULT_DOCUMENT_TTL_MS;
  const directives = cacheControl
    .toLowerCase()
    .split(',')
    .map((part) => part.trim());
  if (directives.some((d) => d === 'no-store' || d === 'no-cache' || d === 'private')) return 0;
  const maxAge = directives
    .find((d) => d.startsWith('max-age='))
    ?.slice('max-age='.length)
    .replace(/^"|"$/g, '');
  if (maxAge === undefined || !/^\d+$/.test(maxAge)) return DEFAULT_DOCUMENT_TTL_MS;
  return Math.min(Number(maxAge) * 1000, MAX_DOCUMENT_TTL_MS);
}

/** The document URL, or why it cannot be one (CIMD "Client Identifier": no fragment, credentials or dot segments). */
function documentUrl(clientId: string): URL {
  const url = new URL(clientId);
  // The id is compared as a string with the document's client_id: a URL that does not parse back to itself (dot
  // segments, an upper-case host, a default port, an empty fragment) would name one document under several ids.
  if (url.href !== clientId)
    throw new OAuthError(
      'invalid_client',
      `client_id ${clientId} is not a URL in normal form (it reads as ${url.href})`,
    );
  if (url.hash !== '' || url.username !== '' || url.password !== '')
    throw new OAuthError('invalid_client', 'a client_id URL must not contain a fragment, a user name or a password');
  return url;
}

/**
 * The document's client, checked: `client_id` equal to the URL, redirect URIs as for registration, and a public
 * client (`none`) or one that proves itself with `private_key_jwt` against the `jwks`/`jwks_uri` it publishes.
 */
function clientFromDocument(clientId: string, text: string, allowHttpKeys: boolean): OAuthClient {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    throw new OAuthError('invalid_client', `the client metadata document at ${clientId} is not JSON`);
  }
  const client_id = (document as { client_id?: unknown } | null)?.client_id;
  if (client_id !== clientId)
    throw new OAuthError(
      'invalid_client',
      `the client metadata document at ${clientId} names another client_id (${JSON.stringify(client_id)})`,
    );
  const secretKeys = ['client_secret', 'client_secret_expires_at'].filter((key) =>
    Object.hasOwn(document as object, key),
  );
  if (secretKeys.length > 0)
    throw new OAuthError(
      'invalid_client',
      `the client metadata document at ${clientId} must not hold ${secretKeys.join(', ')}`,
    );
  try {
    const metadata = checkClientMetadata(document, 'none');
    // CIMD: a document is public, so it cannot carry a shared secret; a client that names private_key_jwt must use it.
    const method = metadata.tokenEndpointAuthMethod;
    if (method !== 'none' && method !== 'private_key_jwt')
      throw new OAuthError('invalid_client_metadata', "token_endpoint_auth_method must be 'none' or 'private_key_jwt'");
    const keys = checkClientKeys(document as Record<string, unknown>, method, allowHttpKeys);
    return { clientId, source: 'metadata-document', firstParty: false, ...metadata, ...keys };
  } catch (err) {
    if (err instanceof OAuthError)
      throw new OAuthError(
        'invalid_client',
        `the client metadata document at ${clientId} is not usable: ${err.description}`,
      );
    throw err;
  }
}

/**
 * Finds clients by their metadata document: from the store's cache (shared by every instance), else fetched from
 * a checked public address. Concurrent requests for one document share one fetch.
 *
 * @example
 * ```ts
 * const documents = new MetadataDocuments(resolved.clientMetadataDocuments, store);
 * const client = await documents.find('https://app.example.com/oauth/client.json');
 * ```
 */
export class MetadataDocuments {
  private readonly fetching = new Map<string, Promise<OAuthClient>>();

  constructor(
    private readonly options: Readonly<Required<ClientMetadataDocumentOptions>>,
    private readonly store: SignInStore,
  ) {}

  /** True when `clientId` is one this resolver answers for. */
  handles(clientId: string): boolean {
    return isDocumentClientId(clientId, this.options.allowPrivateAddresses);
  }

  /**
   * The client the document at `clientId` describes.
   *
   * @throws {OAuthError} `invalid_client` naming why the document cannot be used
   */
  async find(clientId: string): Promise<OAuthClient> {
    const cached = await this.store.get('client', clientId);
    if (cached?.source === 'metadata-document') return cached as unknown as OAuthClient;
    let pending = this.fetching.get(clientId);
    if (pending === undefined) {
      pending = this.load(clientId).finally(() => this.fetching.delete(clientId));
      this.fetching.set(clientId, pending);
    }
    return pending;
  }

  private async load(clientId: string): Promise<OAuthClient> {
    // The host is checked before the form of the URL, so that every spelling of a forbidden host is refused as such.
    const address = await this.checkedAddress(new URL(clientId));
    const url = documentUrl(clientId);
    let fetched;
    try {
      fetched = await fetchPinned(url, address, this.options);
    } catch (err) {
      if (err instanceof DocumentFetchError)
        throw new OAuthError(
          'invalid_client',
          `the client metadata document at ${clientId} cannot be used: ${err.message}`,
        );
      throw err;
    }
    const client = clientFromDocument(clientId, fetched.text, this.options.allowPrivateAddresses);
    const ttlMs = documentTtlMs(fetched.cacheControl);
    if (ttlMs > 0) await this.store.set('client', clientId, { ...client }, ttlMs);
    return client;
  }

  /** The one address to connect to (see {@link publicAddressOf}), else the fetch is refused. */
  private async checkedAddress(url: URL): Promise<string> {
    try {
      return await publicAddressOf(url, this.options);
    } catch (err) {
      if (err instanceof AddressRefusedError)
        throw new OAuthError(
          'invalid_client',
          `the client metadata document at ${url.href} is not fetched: ${err.message}`,
        );
      throw err;
    }
  }
}
