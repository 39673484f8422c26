// Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document; MCP 2025-11-25): fetch safely, check, cache.

import { isIP } from 'node:net';
import type { SignInStore } from '../../../edge/store/sign-in-store';
import type { OAuthClient } from './client';
import { checkClientMetadata } from './client-metadata';
import type { ClientMetadataDocumentOptions } from './client-options';
import { addressRefusal, hostNameRefusal } from './address';
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

/** The document's client, checked: `client_id` equal to the URL, redirect URIs as for registration, a public client. */
function clientFromDocument(clientId: string, text: string): OAuthClient {
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
    // CIMD: a document is public, so it cannot carry a shared secret; private_key_jwt is not supported here.
    if (metadata.tokenEndpointAuthMethod !== 'none')
      throw new OAuthError('invalid_client_metadata', "token_endpoint_auth_method must be 'none'");
    return { clientId, source: 'metadata-document', firstParty: false, ...metadata };
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
    const client = clientFromDocument(clientId, fetched.text);
    const ttlMs = documentTtlMs(fetched.cacheControl);
    if (ttlMs > 0) await this.store.set('client', clientId, { ...client }, ttlMs);
    return client;
  }

  /** The one address to connect to: every address of the host must be public (unless allowed), else the fetch is refused. */
  private async checkedAddress(url: URL): Promise<string> {
    const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
    const refuse = (why: string): never => {
      throw new OAuthError(
        'invalid_client',
        `the client metadata document at ${url.href} is not fetched: its host is ${why}`,
      );
    };
    const allowPrivate = this.options.allowPrivateAddresses;
    if (!allowPrivate && isIP(host) === 0) {
      const why = hostNameRefusal(host);
      if (why !== undefined) refuse(why);
    }
    let addresses: string[];
    try {
      addresses = isIP(host) !== 0 ? [host] : await this.options.resolve(host);
    } catch {
      return refuse('not resolvable');
    }
    if (!Array.isArray(addresses) || addresses.length === 0) return refuse('not resolvable');
    // Any private address refuses the host: a name with one public and one private address could be connected to
    // either (happy eyeballs, round robin).
    for (const address of addresses) {
      const why = addressRefusal(address);
      if (why === 'not an IP address' || (why !== undefined && !allowPrivate)) refuse(`${why} (${address})`);
    }
    return addresses[0] as string;
  }
}
