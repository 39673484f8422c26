// The `clients`, `registration` and `clientMetadataDocuments` keys of `auth.server`: their types, defaults and boot-time checks.

import { createHash } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import { McpConfigError, type OptionKeys } from '../../../options/config-error';
import { listOf, OptionReader } from '../../../options/option-reader';
import { isObject } from '../../../core/jsonrpc/types';
import { JWT_BEARER_GRANT, PREREGISTERED_GRANTS, type OAuthClient } from './client';
import { redirectUriProblem } from './client-metadata';

/** A client the operator registers by option (OAuth 2.1 §2: registration by other means). */
export interface PreRegisteredClient {
  /** The `client_id` the client sends. */
  clientId: string;
  /** Its secret: a confidential client authenticates with it (Basic or in the form). Defaults to none: a public client (PKCE only). */
  clientSecret?: string;
  /**
   * Its exact redirect URIs: https, http on loopback only, or a native app's private-use scheme; no fragments.
   * Required with the `authorization_code` grant.
   */
  redirectUris?: string[];
  /** Shown on the consent page. Defaults to the client id. */
  name?: string;
  /** The operator's own client: no consent page is shown for it. Defaults to `false`. */
  firstParty?: boolean;
  /** The scopes it may ask for, space-separated. Defaults to none named (any the server supports). */
  scope?: string;
  /**
   * The grants it may use: `'authorization_code'`, `'refresh_token'`, and
   * `'urn:ietf:params:oauth:grant-type:jwt-bearer'` (an ID-JAG from a trusted IdP, `auth.server.trustedIdps`; for a
   * client with a secret only). Defaults to `['authorization_code', 'refresh_token']`.
   */
  grants?: string[];
}

/** Dynamic Client Registration (RFC 7591) at `<issuer>/oauth/register`. */
export interface RegistrationOptions {
  /**
   * The most registered clients kept (cached Client ID Metadata Documents count too), in this process or across
   * instances with a shared store: past it the least recently used client is forgotten (a client is used when it
   * starts an authorization, redeems a code or refreshes). A forgotten client with a live authorization, code or
   * refresh family is not lost: each keeps its registration, restored at its next use, so a flood of registrations
   * signs no one out. Defaults to `10000`.
   */
  maxClients?: number;
  /** The largest registration request body, in bytes (HTTP 413 beyond). Defaults to `8192` (8 KB). */
  maxMetadataBytes?: number;
  /** Registrations one IP address may make per minute (HTTP 429 beyond). Defaults to `10`. */
  perMinute?: number;
  /** How long a registration is kept after its last use, in ms; each use extends it. Defaults to `7776000000` (90 days). */
  clientTtlMs?: number;
}

/** Client ID Metadata Documents: a `client_id` that is an https URL naming the client's metadata (MCP 2025-11-25). */
export interface ClientMetadataDocumentOptions {
  /** How long one fetch of a document may take, in ms. Defaults to `5000`. */
  timeoutMs?: number;
  /** The largest document, in bytes; the read stops there. Defaults to `5120` (5 KB). */
  maxBytes?: number;
  /**
   * Lets documents be fetched from loopback and private addresses, and over http. For tests and local development
   * only: on a server it lets any client make the router request internal URLs (SSRF). Defaults to `false`.
   */
  allowPrivateAddresses?: boolean;
  /** Resolves a host name to its IP addresses (tests inject one). Defaults to the system resolver (`dns.lookup`, all addresses). */
  resolve?: (host: string) => Promise<string[]>;
  /** More certificate authorities (PEM) to trust for documents served under a private CA, beside the usual roots. Defaults to none. */
  ca?: string | string[];
}

/** How the authorization server knows its clients. */
export interface ClientsOptions {
  /** Clients registered by option. Defaults to none. */
  clients?: PreRegisteredClient[];
  /** Dynamic Client Registration, or `false` to turn it off. Defaults to on, with the defaults of {@link RegistrationOptions}. */
  registration?: boolean | RegistrationOptions;
  /** Client ID Metadata Documents, or `false` to turn them off. Defaults to on, with the defaults of {@link ClientMetadataDocumentOptions}. */
  clientMetadataDocuments?: boolean | ClientMetadataDocumentOptions;
}

/** The client options after defaulting and checking, frozen. */
export interface ResolvedClients {
  /** Pre-registered clients by id. */
  readonly clients: ReadonlyMap<string, OAuthClient>;
  readonly registration: Readonly<Required<RegistrationOptions>> | false;
  readonly clientMetadataDocuments: Readonly<Required<ClientMetadataDocumentOptions>> | false;
}

const REGISTRATION_DEFAULTS: Required<RegistrationOptions> = {
  maxClients: 10_000,
  maxMetadataBytes: 8_192,
  perMinute: 10,
  clientTtlMs: 90 * 24 * 60 * 60 * 1000,
};
const PREFIX = 'auth.server.';
const CLIENTS_OPTION_KEYS: OptionKeys<ClientsOptions> = {
  clients: true,
  registration: true,
  clientMetadataDocuments: true,
};
const CLIENT_KEYS: OptionKeys<PreRegisteredClient> = {
  clientId: true,
  clientSecret: true,
  redirectUris: true,
  name: true,
  firstParty: true,
  scope: true,
  grants: true,
};
const REGISTRATION_KEYS: OptionKeys<RegistrationOptions> = {
  maxClients: true,
  maxMetadataBytes: true,
  perMinute: true,
  clientTtlMs: true,
};
const DOCUMENT_KEYS: OptionKeys<ClientMetadataDocumentOptions> = {
  timeoutMs: true,
  maxBytes: true,
  allowPrivateAddresses: true,
  resolve: true,
  ca: true,
};

/** SHA-256 (hex) of a client secret: what is kept of it, and what a presented secret is compared with. */
export function secretDigest(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** The system resolver: every address getaddrinfo gives, as the connection itself would resolve the name. */
async function systemResolve(host: string): Promise<string[]> {
  return (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);
}

type Read = OptionReader<ClientsOptions>;

const isGrant = (value: unknown): value is string => typeof value === 'string' && PREREGISTERED_GRANTS.includes(value);

/** One pre-registered client, checked: `auth.server.clients[<index>]`. */
function resolveClient(client: unknown, index: number): OAuthClient {
  const read = OptionReader.of(client as PreRegisteredClient, `${PREFIX}clients[${index}]`, CLIENT_KEYS);
  const clientId = read.raw('clientId');
  if (typeof clientId !== 'string' || clientId.length === 0 || clientId.length > 255)
    throw read.invalid('clientId', 'a string of 1 to 255 characters');
  const clientSecret = read.string('clientSecret', { nonEmpty: true });
  const grants = read.array('grants', isGrant, `an array of ${listOf(PREREGISTERED_GRANTS)}`, { nonEmpty: true });
  const grantTypes = Object.freeze([...new Set(grants ?? ['authorization_code', 'refresh_token'])]);
  // draft-ietf-oauth-identity-assertion-authz-grant §8.1: the grant is for confidential clients; a public one gets the browser flow.
  if (grantTypes.includes(JWT_BEARER_GRANT) && clientSecret === undefined)
    throw read.invalid('clientSecret', `a secret: the grant '${JWT_BEARER_GRANT}' is for confidential clients`);
  const redirectUris = read.raw('redirectUris') ?? [];
  if (!Array.isArray(redirectUris) || (redirectUris.length === 0 && grantTypes.includes('authorization_code')))
    throw read.invalid('redirectUris', 'a non-empty array of URLs');
  redirectUris.forEach((uri: unknown, i) => {
    const problem = redirectUriProblem(uri);
    if (problem !== undefined)
      throw new McpConfigError(
        'ERR_MCP_INVALID_OPTION',
        `option '${read.pathOf('redirectUris')}[${i}]' ${problem}, got ${JSON.stringify(uri)}`,
      );
  });
  return Object.freeze({
    clientId,
    source: 'preregistered',
    clientName: read.string('name'),
    redirectUris: Object.freeze([...(redirectUris as string[])]),
    // A pre-registered client registers no method: one with a secret may use either secret method (RFC 6749 §2.3.1).
    tokenEndpointAuthMethod: clientSecret === undefined ? 'none' : 'client_secret_basic',
    secretDigest: clientSecret === undefined ? undefined : secretDigest(clientSecret),
    grantTypes,
    scope: read.string('scope'),
    firstParty: read.boolean('firstParty', false),
  });
}

/** The pre-registered clients by id, each id listed once. */
function resolveClients(read: Read): Map<string, OAuthClient> {
  const list = read.raw('clients') ?? [];
  if (!Array.isArray(list)) throw read.invalid('clients', 'an array of clients');
  const clients = new Map<string, OAuthClient>();
  list.forEach((entry: unknown, index) => {
    const client = resolveClient(entry, index);
    if (clients.has(client.clientId))
      throw new McpConfigError(
        'ERR_MCP_DUPLICATE',
        `option '${PREFIX}clients[${index}].clientId': '${client.clientId}' is listed twice`,
      );
    clients.set(client.clientId, client);
  });
  return clients;
}

/** A part that is on by default: false, or the reader of its options (`true` and absent: every default). */
function toggled<O extends object>(
  read: Read,
  key: 'registration' | 'clientMetadataDocuments',
  known: OptionKeys<O>,
): OptionReader<O> | false {
  const value = read.raw(key);
  if (value === false) return false;
  if (value !== undefined && value !== true && !isObject(value))
    throw read.invalid(key, 'an options object, true or false');
  return OptionReader.of(value === true ? undefined : (value as O | undefined), read.pathOf(key), known);
}

function resolveRegistration(read: Read): ResolvedClients['registration'] {
  const registration = toggled<RegistrationOptions>(read, 'registration', REGISTRATION_KEYS);
  if (registration === false) return false;
  return Object.freeze({
    maxClients: registration.positiveInteger('maxClients', REGISTRATION_DEFAULTS.maxClients),
    maxMetadataBytes: registration.positiveInteger('maxMetadataBytes', REGISTRATION_DEFAULTS.maxMetadataBytes),
    perMinute: registration.positiveInteger('perMinute', REGISTRATION_DEFAULTS.perMinute),
    clientTtlMs: registration.milliseconds('clientTtlMs', REGISTRATION_DEFAULTS.clientTtlMs),
  });
}

function resolveDocuments(read: Read): ResolvedClients['clientMetadataDocuments'] {
  const documents = toggled<ClientMetadataDocumentOptions>(read, 'clientMetadataDocuments', DOCUMENT_KEYS);
  if (documents === false) return false;
  const ca = documents.raw('ca', []);
  const authorities = typeof ca === 'string' ? [ca] : ca;
  if (
    !Array.isArray(authorities) ||
    !authorities.every((pem) => typeof pem === 'string' && pem.includes('-----BEGIN CERTIFICATE-----'))
  )
    throw documents.invalid('ca', 'PEM certificates (a string or an array of strings)', typeof ca);
  return Object.freeze({
    timeoutMs: documents.milliseconds('timeoutMs', 5_000),
    maxBytes: documents.positiveInteger('maxBytes', 5_120),
    allowPrivateAddresses: documents.boolean('allowPrivateAddresses', false),
    resolve: documents.fn('resolve') ?? systemResolve,
    ca,
  });
}

/**
 * Checks and defaults the client options of `auth.server`, once, at boot. The caller's objects are never changed.
 *
 * @throws {McpConfigError} naming the option: `auth.server.clients[0].redirectUris[1]`, `auth.server.registration.perMinute`, …
 * @example
 * ```ts
 * const clients = resolveClientsOptions({ clients: [{ clientId: 'cli', redirectUris: ['http://127.0.0.1/cb'] }], registration: { perMinute: 5 } });
 * ```
 */
export function resolveClientsOptions(options: ClientsOptions): ResolvedClients {
  // Only these keys: the others of `auth.server` are checked by their owner.
  const { clients, registration, clientMetadataDocuments } = options;
  const read = OptionReader.of({ clients, registration, clientMetadataDocuments }, 'auth.server', CLIENTS_OPTION_KEYS);
  return Object.freeze({
    clients: resolveClients(read),
    registration: resolveRegistration(read),
    clientMetadataDocuments: resolveDocuments(read),
  });
}
