// Finds an authorization server's metadata at every URL the SDK clients try, in their order, and checks the one they would read.

import type { Finding } from '../finding';
import type { DocumentFetcher, Fetched } from './documents';
import { AUTH_DOCS } from './links';
import { corsFinding } from './resource-fields';
import { serverFieldFindings } from './server-fields';
import { serverMetadataUrls, type DiscoveryUrl } from './urls';

/** The fields the SDK clients' schemas require of each format: a document without one fails to parse. */
const REQUIRED: Readonly<Record<DiscoveryUrl['kind'], readonly string[]>> = {
  oauth: ['issuer', 'authorization_endpoint', 'token_endpoint', 'response_types_supported'],
  oidc: [
    'issuer',
    'authorization_endpoint',
    'token_endpoint',
    'response_types_supported',
    'jwks_uri',
    'subject_types_supported',
    'id_token_signing_alg_values_supported',
  ],
};

const KIND_NAME: Readonly<Record<DiscoveryUrl['kind'], string>> = { oauth: 'RFC 8414', oidc: 'OpenID Connect' };

/**
 * The document the SDK clients read: the first place in order that serves one. A 4xx or a redirect elsewhere sends them
 * on to the next; a 5xx or a 200 that is not a JSON object stops discovery with an error.
 */
function chosenOf(
  places: readonly { place: DiscoveryUrl; doc: Fetched }[],
): { place: DiscoveryUrl; doc: Fetched } | undefined {
  for (const entry of places) {
    if (entry.doc.json !== undefined) return entry;
    const status = entry.doc.reply?.status;
    if (entry.doc.elsewhere === undefined && status !== undefined && (status >= 500 || status === 200)) return entry;
  }
  return undefined;
}

/** RFC 8414 §3.3 (and OpenID Connect Discovery §4.3): the `issuer` is the URL the metadata was asked for, exactly. */
function issuerFinding(metadata: Readonly<Record<string, unknown>>, issuer: string): Finding | undefined {
  const named = metadata.issuer;
  if (typeof named !== 'string') return undefined;
  if (named === issuer) return { id: 'auth.as-issuer', severity: 'ok', summary: `\`issuer\` is ${issuer}, as asked` };
  const slashOnly = named.replace(/\/$/, '') === issuer.replace(/\/$/, '');
  return {
    id: 'auth.as-issuer',
    severity: slashOnly ? 'warn' : 'fail',
    summary: `\`issuer\` is ${named}, but the resource names ${issuer}${slashOnly ? ' (a trailing slash apart: the SDK clients tolerate it, others compare exactly)' : ''}`,
    fix: "The issuer in `authorization_servers` and in the server's own metadata must be the same string (RFC 8414 §3.3; RFC 9207 compares it exactly). Name the issuer exactly as the authorization server does.",
    docs: AUTH_DOCS.serverEndpoints,
  };
}

function discoveryFinding(
  issuer: string,
  places: readonly { place: DiscoveryUrl; doc: Fetched }[],
  chosen?: { place: DiscoveryUrl; doc: Fetched },
): Finding {
  const id = 'auth.as-discovery';
  const detail = places
    .map(({ place, doc }) => `${place.url}: ${doc.json !== undefined ? 'found' : (doc.problem ?? 'not found')}`)
    .join('; ');
  if (chosen?.doc.json !== undefined) {
    const order = places.indexOf(chosen) + 1;
    return {
      id,
      severity: 'ok',
      summary: `metadata of ${issuer} found at ${chosen.doc.url} (${KIND_NAME[chosen.place.kind]}, try ${order} of ${places.length})`,
      detail,
    };
  }
  const stopped =
    chosen === undefined
      ? 'at any of the URLs clients try'
      : `: clients stop at ${chosen.doc.url}, which ${chosen.doc.problem ?? 'fails'}`;
  return {
    id,
    severity: 'fail',
    summary: `no metadata for the authorization server ${issuer} ${stopped}`,
    detail,
    fix: `Serve RFC 8414 metadata at ${places[0]?.place.url ?? 'the well-known URL'} (or OpenID Connect Discovery at one of the other URLs); with this router as the server, \`app.use(['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration'], mcp.authServerMetadata)\` serves the root forms.`,
    docs: AUTH_DOCS.serverEndpoints,
  };
}

/** Where the metadata is not: RFC 8414 §3.1 puts it at the first URL; clients that try only that one miss it elsewhere. */
function wellKnownFinding(
  places: readonly { place: DiscoveryUrl; doc: Fetched }[],
  chosen: { doc: Fetched },
): Finding | undefined {
  const first = places[0];
  if (first === undefined || first.doc === chosen.doc) return undefined;
  return {
    id: 'auth.as-well-known',
    severity: 'info',
    summary: `the metadata is not at ${first.place.url}, the RFC 8414 URL: clients that try only that one will not find it`,
    fix: "With this router as the server, `app.use(['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration'], mcp.authServerMetadata)` serves it there too; another server: answer GET there with the same document.",
    docs: AUTH_DOCS.serverEndpoints,
  };
}

/** Discovers and checks one authorization server named by the protected-resource metadata. */
export async function checkServer(fetcher: DocumentFetcher, issuer: string, url: URL): Promise<Finding[]> {
  const urls = serverMetadataUrls(url);
  const docs = await Promise.all(urls.map((place) => fetcher.get(place.url)));
  const places = urls.map((place, i) => ({ place, doc: docs[i] as Fetched }));
  const chosen = chosenOf(places);
  const findings = [discoveryFinding(issuer, places, chosen)];
  const metadata = chosen?.doc.json;
  if (chosen === undefined || metadata === undefined) return findings;
  const elsewhere = wellKnownFinding(places, chosen);
  if (elsewhere) findings.push(elsewhere);
  const missing = REQUIRED[chosen.place.kind].filter((field) => metadata[field] === undefined);
  if (missing.length > 0)
    findings.push({
      id: 'auth.as-required',
      severity: 'fail',
      summary: `the ${KIND_NAME[chosen.place.kind]} metadata lacks ${missing.join(', ')}: clients fail to read it`,
      fix: `Add the required fields (RFC 8414 §2${chosen.place.kind === 'oidc' ? ', OpenID Connect Discovery §3' : ''}).`,
      docs: AUTH_DOCS.serverEndpoints,
    });
  const issuerCheck = issuerFinding(metadata, issuer);
  if (issuerCheck) findings.push(issuerCheck);
  findings.push(corsFinding('auth.as-cors', chosen.doc, fetcher.origin, 'the authorization server metadata'));
  findings.push(...serverFieldFindings(metadata, url));
  return findings;
}
