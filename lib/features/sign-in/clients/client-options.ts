// The `clients`, `registration` and `clientMetadataDocuments` keys of `auth.server`: their types, defaults and boot-time checks.

import { lookup } from 'node:dns/promises';
import type { JwtKeyResolver } from '../../../edge/security/jose-types';
import type { OptionKeys } from '../../../options/config-error';
import { OptionReader } from '../../../options/option-reader';
import { isObject } from '../../../core/jsonrpc/types';
import type { McpLogger } from '../../../core/logger';
import type { OAuthClient } from './client';
import { resolvePreRegisteredClients, type PreRegisteredClient } from './preregistered-clients';

export type { ClientGrant, PreRegisteredClient } from './preregistered-clients';

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
  /** The key sets of pre-registered `private_key_jwt` clients, by id. */
  readonly keySets: ReadonlyMap<string, JwtKeyResolver>;
  readonly registration: Readonly<Required<RegistrationOptions>> | false;
  readonly clientMetadataDocuments: Readonly<Required<ClientMetadataDocumentOptions>> | false;
  /**
   * How a `jwks_uri` of a registered or document client is fetched: the `clientMetadataDocuments` bounds and address
   * rules, their defaults when documents are off.
   */
  readonly keyFetch: Readonly<Required<ClientMetadataDocumentOptions>>;
  /** Where failures to load a client's key set are reported (the router's `logger`). */
  readonly logger: McpLogger;
}

const REGISTRATION_DEFAULTS: Required<RegistrationOptions> = {
  maxClients: 10_000,
  maxMetadataBytes: 8_192,
  perMinute: 10,
  clientTtlMs: 90 * 24 * 60 * 60 * 1000,
};
const CLIENTS_OPTION_KEYS: OptionKeys<ClientsOptions> = {
  clients: true,
  registration: true,
  clientMetadataDocuments: true,
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

/** The system resolver: every address getaddrinfo gives, as the connection itself would resolve the name. */
async function systemResolve(host: string): Promise<string[]> {
  return (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);
}

type Read = OptionReader<ClientsOptions>;

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

/** The documents' settings when `clientMetadataDocuments` is off: still how a registered client's `jwks_uri` is fetched. */
const documentDefaults = (): Readonly<Required<ClientMetadataDocumentOptions>> =>
  resolveDocuments(OptionReader.of({}, 'auth.server', CLIENTS_OPTION_KEYS)) as Readonly<
    Required<ClientMetadataDocumentOptions>
  >;

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
 * @param logger - where a client's key set that cannot be loaded is reported (the router's `logger`)
 * @throws {McpConfigError} naming the option: `auth.server.clients[0].redirectUris[1]`, `auth.server.registration.perMinute`, …
 * @example
 * ```ts
 * const clients = resolveClientsOptions({ clients: [{ clientId: 'cli', redirectUris: ['http://127.0.0.1/cb'] }], registration: { perMinute: 5 } });
 * ```
 */
export function resolveClientsOptions(options: ClientsOptions, logger: McpLogger = console): ResolvedClients {
  // Only these keys: the others of `auth.server` are checked by their owner.
  const { clients, registration, clientMetadataDocuments } = options;
  const read = OptionReader.of({ clients, registration, clientMetadataDocuments }, 'auth.server', CLIENTS_OPTION_KEYS);
  const documents = resolveDocuments(read);
  return Object.freeze({
    ...resolvePreRegisteredClients(read.raw('clients') ?? [], logger),
    registration: resolveRegistration(read),
    clientMetadataDocuments: documents,
    keyFetch: documents === false ? documentDefaults() : documents,
    logger,
  });
}
