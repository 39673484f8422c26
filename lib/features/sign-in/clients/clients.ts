// The authorization server's client directory: pre-registered, dynamically registered and metadata-document clients, one API.

import type { SignInStore } from '../../../edge/store/sign-in-store';
import type { OAuthClient } from './client';
import { authenticateClient, type AssertionCheck } from './client-auth';
import { ASYMMETRIC_JWS_ALGORITHMS } from '../../../edge/security/jose-types';
import { verifyClientAssertion } from './client-assertion';
import { ClientKeys } from './client-keys';
import { AUTH_METHODS, GRANT_TYPES } from './client-metadata';
import { CLIENT_GRANTS } from './preregistered-clients';
import type { ResolvedClients } from './client-options';
import { MetadataDocuments } from './cimd';
import { OAuthError } from '../oauth-error';
import { findRegisteredClient, keptRegistration, registerClient, restoreRegisteredClient } from './registration';

/** What the authorization server's endpoints ask of its clients. */
export interface ClientDirectory {
  /**
   * A client by id: pre-registered, registered (store), or — when the id is an https URL with a path — its metadata
   * document (fetched, cached). Undefined for an unknown id.
   *
   * @throws {OAuthError} `invalid_client` when a metadata document cannot be used (the description says why)
   */
  find(clientId: string): Promise<OAuthClient | undefined>;
  /**
   * {@link ClientDirectory.find}, or else the registration `kept` by a pending authorization, code or refresh family
   * of this client (a dynamically registered one the store lost to `maxClients` or its TTL), written back to the
   * store as the most recently used: a client with a live grant keeps working, whatever registrations came since.
   */
  findOrRestore(clientId: string, kept: unknown): Promise<OAuthClient | undefined>;
  /**
   * Registers a client (POST `<issuer>/oauth/register`), given the parsed JSON body.
   *
   * @returns the RFC 7591 §3.2.1 response body, to answer with 201
   * @throws {OAuthError} `invalid_client_metadata` or `invalid_redirect_uri`; `invalid_request` (404) when registration is off
   */
  register(metadata: unknown): Promise<Record<string, unknown>>;
  /**
   * Token and revocation endpoint client authentication: `client_secret_basic`, `client_secret_post`,
   * `private_key_jwt` or `none`. `keptBy` reads the registration that the presented code or refresh token's grant
   * kept of the client: a registered client the store lost is authenticated against it and, once authenticated,
   * restored. `audiences` are what a client assertion's `aud` may name (the issuer, the token endpoint URL); without
   * them no assertion is accepted.
   *
   * @throws {ClientAuthenticationError} `invalid_client` (401; its `headers` carry `WWW-Authenticate: Basic` when Basic was used)
   */
  authenticate(
    authorization: string | undefined,
    form: Readonly<Record<string, string>>,
    keptBy?: (clientId: string) => Promise<unknown>,
    audiences?: readonly string[],
  ): Promise<OAuthClient>;
  /** True when `redirectUri` is one of the client's, compared exactly (OAuth 2.1 §2.3.1; a loopback http redirect's port may differ, RFC 8252 §7.3). */
  allowsRedirect(client: OAuthClient, redirectUri: string): boolean;
  /** What the server metadata (RFC 8414) says about clients. */
  readonly metadata: {
    /** Serve `registration_endpoint`. */
    readonly registration: boolean;
    /** `client_id_metadata_document_supported`. */
    readonly metadataDocuments: boolean;
    /** `token_endpoint_auth_methods_supported`. */
    readonly authMethods: readonly string[];
    /** `token_endpoint_auth_signing_alg_values_supported`: the client assertion algorithms, when `private_key_jwt` is listed. */
    readonly authSigningAlgorithms: readonly string[] | undefined;
    /** `grant_types_supported`: each grant some client may use (a client has the JWT bearer grant only with trusted IdPs). */
    readonly grantTypes: readonly string[];
  };
}

/** Loopback redirect hosts whose port the client picks at run time (RFC 8252 §7.3). */
const LOOPBACK_IPS = new Set(['127.0.0.1', '[::1]']);

/** The URI without its port, when it is an http redirect to a loopback IP literal; undefined otherwise. */
function loopbackWithoutPort(uri: string): string | undefined {
  if (!uri.startsWith('http://') || !URL.canParse(uri)) return undefined;
  const url = new URL(uri);
  if (!LOOPBACK_IPS.has(url.hostname)) return undefined;
  url.port = '';
  return url.href;
}

/** True when `redirectUri` is one of `registered`: exact string match, but for the port of a loopback IP redirect. */
export function redirectAllowed(registered: readonly string[], redirectUri: string): boolean {
  if (registered.includes(redirectUri)) return true;
  // RFC 8252 §7.3: "MUST allow any port to be specified at the time of the request for loopback IP redirect URIs".
  // Only for IP literals: `localhost` is looked up, and may not be loopback (RFC 8252 §8.3).
  const withoutPort = loopbackWithoutPort(redirectUri);
  return withoutPort !== undefined && registered.some((uri) => loopbackWithoutPort(uri) === withoutPort);
}

/**
 * The client directory of an authorization server, over its sign-in store (kind `'client'`): registrations and
 * cached metadata documents live there, so every instance sharing the store knows every client.
 *
 * @param options - from {@link resolveClientsOptions}
 * @param store - the sign-in store
 * @example
 * ```ts
 * const directory = createClientDirectory(resolveClientsOptions({ registration: { perMinute: 5 } }), new MemorySignInStore());
 * const client = await directory.authenticate(req.headers.authorization, form);
 * ```
 */
export function createClientDirectory(options: ResolvedClients, store: SignInStore): ClientDirectory {
  const { clients, registration } = options;
  const documents =
    options.clientMetadataDocuments === false
      ? undefined
      : new MetadataDocuments(options.clientMetadataDocuments, store);
  const preregistered = [...clients.values()];
  const anyPublic =
    registration !== false ||
    documents !== undefined ||
    preregistered.some((client) => client.tokenEndpointAuthMethod === 'none');
  const anySecret = registration !== false || preregistered.some((client) => client.secretDigest !== undefined);
  const anyKeys = registration !== false || documents !== undefined || options.keySets.size > 0;
  const authMethods = AUTH_METHODS.filter((method) =>
    method === 'none' ? anyPublic : method === 'private_key_jwt' ? anyKeys : anySecret,
  );
  const keys = new ClientKeys(options.keySets, options.keyFetch, options.logger);
  const assertionCheck =
    (audiences: readonly string[]): AssertionCheck =>
    async (client, assertion) => {
      const keySet = keys.keysOf(client);
      if (keySet === undefined) return 'the client has no keys';
      return verifyClientAssertion(assertion, keySet, { clientId: client.clientId, audiences }, store);
    };

  const find = async (clientId: string): Promise<OAuthClient | undefined> => {
    const known = clients.get(clientId);
    if (known !== undefined) return known;
    if (documents?.handles(clientId)) return documents.find(clientId);
    return registration === false ? undefined : findRegisteredClient(clientId, registration, store);
  };
  /**
   * {@link find}, else (with registration on) the registration a grant of the client `kept`, with how to write it back
   * to the store as the most recently used: a client with a live grant outlives `maxClients` evictions.
   */
  const findOrKept = async (
    clientId: string,
    kept: (() => Promise<unknown>) | undefined,
  ): Promise<{ client: OAuthClient | undefined; restore?: () => Promise<void> }> => {
    const found = await find(clientId);
    if (found !== undefined || registration === false || kept === undefined) return { client: found };
    const client = keptRegistration(clientId, await kept());
    return client === undefined
      ? { client }
      : { client, restore: () => restoreRegisteredClient(client, registration, store) };
  };

  return Object.freeze({
    find,
    async register(metadata: unknown) {
      if (registration === false)
        throw new OAuthError('invalid_request', 'dynamic client registration is not enabled on this server', 404);
      return registerClient(metadata, registration, store, options.keyFetch.allowPrivateAddresses);
    },
    async findOrRestore(clientId: string, kept: unknown) {
      const { client, restore } = await findOrKept(clientId, async () => kept);
      await restore?.();
      return client;
    },
    async authenticate(
      authorization: string | undefined,
      form: Readonly<Record<string, string>>,
      keptBy?: (clientId: string) => Promise<unknown>,
      audiences?: readonly string[],
    ) {
      let restore: (() => Promise<void>) | undefined;
      const find = async (clientId: string) => {
        const found = await findOrKept(clientId, keptBy && (() => keptBy(clientId)));
        restore = found.restore;
        return found.client;
      };
      const client = await authenticateClient(authorization, form, find, audiences && assertionCheck(audiences));
      // Written back only once the client proved itself against the kept record (its secret's digest, if any).
      await restore?.();
      return client;
    },
    allowsRedirect: (client: OAuthClient, redirectUri: string) => redirectAllowed(client.redirectUris, redirectUri),
    metadata: Object.freeze({
      registration: registration !== false,
      metadataDocuments: documents !== undefined,
      authMethods: Object.freeze(authMethods),
      authSigningAlgorithms: anyKeys ? ASYMMETRIC_JWS_ALGORITHMS : undefined,
      // What some client may use: registered and metadata-document clients take the code and refresh grants.
      grantTypes: Object.freeze(
        CLIENT_GRANTS.filter(
          (grant) =>
            ((registration !== false || documents !== undefined) && GRANT_TYPES.includes(grant)) ||
            preregistered.some((client) => client.grantTypes.includes(grant)),
        ),
      ),
    }),
  });
}
