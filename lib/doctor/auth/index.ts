// The doctor's auth area: sign-in discovery checked the way MCP clients walk it, from the 401 to the authorization server.

import type { Check, DoctorContext } from '../context';
import type { Finding } from '../finding';
import { checkChallenge } from './challenge';
import { DocumentFetcher } from './documents';
import { AUTH_DOCS } from './links';
import { checkResourceMetadata } from './resource-metadata';
import { checkServer } from './server-metadata';
import { checkToken } from './token';

/** The origin discovery documents are asked with when `--origin` names none: any page's, to see whether browsers may read them. */
export const DEFAULT_DISCOVERY_ORIGIN = 'https://client.example';

/** Most authorization servers checked: clients use the first, the next ones are checked for what an operator may switch to. */
const MAX_SERVERS = 3;

/**
 * The MCP 2025-03-26 fallback the SDK clients keep: with no `authorization_servers` (or no metadata), the endpoint's
 * origin is taken as the authorization server. Found there: checked, with a warning; not found: the server offers no
 * OAuth sign-in, only tokens handed out by its operator.
 */
async function fallbackFindings(fetcher: DocumentFetcher, endpoint: URL, metadataRead: boolean): Promise<Finding[]> {
  const origin = new URL('/', endpoint.origin);
  const found = await checkServer(fetcher, endpoint.origin, origin);
  const why = metadataRead ? 'no authorization server named' : 'the protected-resource metadata could not be read';
  if (found[0]?.severity === 'ok')
    return [
      {
        id: 'auth.as-fallback',
        severity: 'warn',
        summary: `${why}; clients fall back to the endpoint's origin, ${endpoint.origin}, whose metadata they find`,
        fix: 'Name the authorization server in the protected-resource metadata (`authorization_servers`, RFC 9728 §2): the origin fallback is the 2025-03-26 behaviour newer clients drop.',
        docs: AUTH_DOCS.signIn,
      },
      ...found,
    ];
  // Unread metadata is `auth.prm`'s failure: nothing says the server means to offer no sign-in.
  if (!metadataRead)
    return [
      {
        id: 'auth.as-fallback',
        severity: 'info',
        summary: `no authorization server found: the protected-resource metadata could not be read (see auth.prm), and the endpoint's origin serves no authorization-server metadata`,
        detail: found[0]?.detail,
        fix: 'Fix `auth.prm` first: the metadata names the authorization server clients sign in with.',
        docs: AUTH_DOCS.bearer,
      },
    ];
  return [
    {
      id: 'auth.as-fallback',
      severity: 'info',
      summary: 'no OAuth sign-in offered: clients need a token handed to them (a pre-shared token)',
      detail: found[0]?.detail,
      fix: 'For hosted clients (Claude, ChatGPT connectors) to sign users in, name an authorization server in the protected-resource metadata; this router: `auth.server`, or `auth.resourceMetadata.authorizationServers` with your identity provider.',
      docs: AUTH_DOCS.signIn,
    },
  ];
}

async function discoveryFindings(ctx: DoctorContext, metadataUrl: URL | undefined): Promise<Finding[]> {
  const fetcher = new DocumentFetcher(ctx.http, ctx.target.origin ?? DEFAULT_DISCOVERY_ORIGIN);
  const resource = await checkResourceMetadata(fetcher, ctx.target.url, metadataUrl);
  const findings = [...resource.findings];
  if (resource.servers.length === 0) {
    const named: unknown = resource.document?.json?.authorization_servers;
    if (!Array.isArray(named) || named.length === 0)
      findings.push(...(await fallbackFindings(fetcher, ctx.target.url, resource.document !== undefined)));
    return findings;
  }
  const servers = resource.servers.slice(0, MAX_SERVERS);
  const checked = await Promise.all(servers.map((server) => checkServer(fetcher, server.issuer, server.url)));
  for (const [i, list] of checked.entries()) {
    // The first server's findings as they are; the others' under their issuer, so a report tells them apart.
    const label = i === 0 ? undefined : servers[i]?.issuer;
    findings.push(
      ...list.map((finding) =>
        label === undefined ? finding : { ...finding, summary: `${label}: ${finding.summary}` },
      ),
    );
  }
  return findings;
}

/**
 * The auth checks of the doctor: a request without a token in both eras (a 401 with a Bearer or DPoP challenge
 * naming the protected-resource metadata), that metadata at the challenge's URL and both well-known forms (found,
 * CORS-readable, its `resource` the URL used), each authorization server's metadata at every URL the SDK clients try
 * (issuer, https endpoints, PKCE S256, registration, grants, `iss`), and with a token whether it is accepted. Every
 * request is bounded by the HTTP settings; nothing here throws, and the token is never printed.
 *
 * @example
 * ```ts
 * const findings = await checkAuth({ target: { url: new URL('https://mcp.example.com/mcp'), calls: [] }, http: settings });
 * ```
 */
export const checkAuth: Check = async (ctx) => {
  try {
    const challenge = await checkChallenge(ctx);
    if (challenge.outcome !== 'protected') return challenge.findings;
    const findings = [...challenge.findings, ...(await discoveryFindings(ctx, challenge.metadataUrl))];
    const token = await checkToken(ctx, challenge.era ?? '2025');
    return token === undefined ? findings : [...findings, token];
  } catch (error) {
    // A check never throws (context.ts): a bug here is a finding, never the end of the run.
    const reason = error instanceof Error ? error.message : String(error);
    return [{ id: 'auth.error', severity: 'warn', summary: `the auth checks stopped: ${reason}` }];
  }
};
