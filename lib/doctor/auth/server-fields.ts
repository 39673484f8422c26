// Judges an authorization server's metadata (RFC 8414 §2) by what MCP clients need of it: endpoints, PKCE, registration, grants.

import type { Finding } from '../finding';
import { AUTH_DOCS, PUBLIC_URL_FIX } from './links';
import { insecureReason, parseUrl, reachOf } from './urls';

type Metadata = Readonly<Record<string, unknown>>;

const listOf = (value: unknown): string[] | undefined =>
  Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : undefined;

/** Every endpoint named (`*_endpoint`, `jwks_uri`): an https URL (loopback may use http) on a host clients reach. */
function endpointsFinding(metadata: Metadata, issuer: URL): Finding {
  const id = 'auth.as-endpoints';
  const named = Object.entries(metadata).filter(([key]) => key.endsWith('_endpoint') || key === 'jwks_uri');
  const problems: string[] = [];
  for (const [key, value] of named) {
    const url = parseUrl(value);
    if (url === undefined) problems.push(`${key} is not a URL (${JSON.stringify(value)})`);
    else if (insecureReason(url) !== undefined) problems.push(`${key} ${url.href}: ${insecureReason(url) as string}`);
    else if (reachOf(url.hostname) !== 'public' && reachOf(issuer.hostname) === 'public')
      problems.push(`${key} ${url.href}: an internal host`);
  }
  if (problems.length === 0)
    return {
      id,
      severity: 'ok',
      summary: `its ${named.length} endpoints are https (or loopback) URLs on reachable hosts`,
    };
  return {
    id,
    severity: 'fail',
    summary: `endpoints clients cannot use: ${problems.join('; ')}`,
    fix: `Every endpoint must be an https URL on the public host (MCP authorization › Communication Security). ${PUBLIC_URL_FIX}`,
    docs: AUTH_DOCS.deployment,
  };
}

/** MCP authorization › Authorization Code Protection: without `S256` listed, clients MUST refuse to go on. */
function pkceFinding(metadata: Metadata): Finding {
  const id = 'auth.as-pkce';
  const methods = listOf(metadata.code_challenge_methods_supported);
  if (methods?.includes('S256')) return { id, severity: 'ok', summary: 'PKCE `S256` is advertised' };
  return {
    id,
    severity: 'fail',
    summary:
      methods === undefined
        ? 'no `code_challenge_methods_supported`: MCP clients refuse an authorization server that does not advertise PKCE'
        : `\`code_challenge_methods_supported\` is ${JSON.stringify(methods)}, without "S256": MCP clients refuse it`,
    fix: 'Support PKCE with S256 and advertise `"code_challenge_methods_supported": ["S256"]` (RFC 8414 §2, RFC 7636); with an identity provider, turn PKCE on for the client.',
    docs: AUTH_DOCS.serverEndpoints,
  };
}

/** RFC 9207: the `iss` authorization response parameter protects against mix-up (MCP 2026-07-28: SHOULD, and advertised). */
function issParameterFinding(metadata: Metadata): Finding {
  const id = 'auth.as-iss-parameter';
  if (metadata.authorization_response_iss_parameter_supported === true)
    return { id, severity: 'ok', summary: 'authorization responses carry `iss` (RFC 9207)' };
  return {
    id,
    severity: 'info',
    summary:
      'no `authorization_response_iss_parameter_supported`: clients cannot check which server answered (mix-up, RFC 9207)',
    fix: 'Send `iss` with authorization responses and advertise `authorization_response_iss_parameter_supported: true` (MCP 2026-07-28 authorization: SHOULD).',
    docs: AUTH_DOCS.serverChoices,
  };
}

/** MCP authorization › Client Registration: a client gets its id from a metadata document, DCR, or the operator. */
function registrationFinding(metadata: Metadata): Finding {
  const id = 'auth.as-registration';
  const ways = [
    ...(metadata.client_id_metadata_document_supported === true ? ['Client ID Metadata Documents'] : []),
    ...(typeof metadata.registration_endpoint === 'string' ? ['Dynamic Client Registration'] : []),
  ];
  if (ways.length > 0) return { id, severity: 'ok', summary: `clients can register by ${ways.join(' and ')}` };
  return {
    id,
    severity: 'warn',
    summary:
      'neither `client_id_metadata_document_supported` nor a `registration_endpoint`: clients need a client id registered beforehand',
    fix: 'Accept Client ID Metadata Documents (advertise `client_id_metadata_document_supported: true`) or Dynamic Client Registration (RFC 7591, a `registration_endpoint`), or give each client a pre-registered client id; `auth.server` of this router does both.',
    docs: AUTH_DOCS.signIn,
  };
}

/** Hosted clients sign users in with the authorization code grant and keep them signed in with refresh tokens. */
function grantTypesFinding(metadata: Metadata): Finding {
  const id = 'auth.as-grant-types';
  // RFC 8414 §2: omitted means ["authorization_code", "implicit"].
  const grants = listOf(metadata.grant_types_supported) ?? ['authorization_code', 'implicit'];
  if (!grants.includes('authorization_code'))
    return {
      id,
      severity: 'fail',
      summary: `\`grant_types_supported\` is ${JSON.stringify(grants)}, without "authorization_code": users cannot sign in`,
      fix: 'Enable the authorization code grant (with PKCE) for MCP clients.',
      docs: AUTH_DOCS.signIn,
    };
  if (grants.includes('refresh_token'))
    return { id, severity: 'ok', summary: 'grants: authorization_code and refresh_token' };
  return {
    id,
    severity: 'info',
    summary: 'no "refresh_token" grant advertised: users sign in again whenever an access token expires',
    fix: 'Issue refresh tokens and list "refresh_token" in `grant_types_supported`.',
    docs: AUTH_DOCS.signIn,
  };
}

function responseTypesFinding(metadata: Metadata): Finding | undefined {
  const types = listOf(metadata.response_types_supported);
  // A missing list is reported with the other required fields.
  if (types === undefined) return undefined;
  if (types.includes('code'))
    return { id: 'auth.as-response-types', severity: 'ok', summary: 'response type `code` is supported' };
  return {
    id: 'auth.as-response-types',
    severity: 'fail',
    summary: `\`response_types_supported\` is ${JSON.stringify(types)}, without "code"`,
    fix: 'Support the `code` response type (OAuth 2.1 authorization code flow).',
    docs: AUTH_DOCS.signIn,
  };
}

/** Public clients (most MCP clients: desktop apps, CLIs, browser pages) authenticate to the token endpoint with `none`. */
function tokenAuthFinding(metadata: Metadata): Finding {
  const id = 'auth.as-token-auth-methods';
  // RFC 8414 §2: omitted means client_secret_basic only.
  const methods = listOf(metadata.token_endpoint_auth_methods_supported) ?? ['client_secret_basic'];
  if (methods.includes('none')) return { id, severity: 'ok', summary: 'public clients are accepted (`none`)' };
  return {
    id,
    severity: 'warn',
    summary: `\`token_endpoint_auth_methods_supported\` is ${JSON.stringify(methods)}, without "none": public clients (no secret) cannot get tokens`,
    fix: 'Accept public clients with PKCE: list "none" in `token_endpoint_auth_methods_supported`.',
    docs: AUTH_DOCS.signIn,
  };
}

/** The findings on a document that was found and parsed, for the authorization server `issuer`. */
export function serverFieldFindings(metadata: Metadata, issuer: URL): Finding[] {
  const findings = [
    endpointsFinding(metadata, issuer),
    pkceFinding(metadata),
    registrationFinding(metadata),
    grantTypesFinding(metadata),
    responseTypesFinding(metadata),
    tokenAuthFinding(metadata),
    issParameterFinding(metadata),
  ];
  return findings.filter((finding): finding is Finding => finding !== undefined);
}
