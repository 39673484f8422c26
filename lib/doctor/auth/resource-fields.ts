// Judges a protected-resource metadata document (RFC 9728 §2) as MCP clients use it: its resource, its authorization servers, CORS.

import type { Finding } from '../finding';
import { corsReadable, type Fetched } from './documents';
import { AUTH_DOCS, PUBLIC_URL_FIX } from './links';
import { insecureReason, parseUrl, reachOf, resourceCovers, resourceOf } from './urls';

/** Why `resource` does not cover `endpoint`, in the words of the usual cause. */
function mismatchOf(resource: URL, endpoint: URL): { summary: string; fix: string; docs: string } {
  const named = `names \`resource\` ${resource.href}, but the client used ${endpoint.href}`;
  if (resource.origin === endpoint.origin)
    return {
      summary: `${named}: its path is not a prefix of the endpoint's`,
      fix: `Name the endpoint itself as the resource (this router: leave \`auth.resourceMetadata.resource\` unset, or set it to ${endpoint.href}).`,
      docs: AUTH_DOCS.bearer,
    };
  let cause: string | undefined;
  if (resource.protocol === 'http:' && endpoint.protocol === 'https:')
    cause = 'plain http: the app behind a TLS-terminating proxy does not know clients use https';
  else if (reachOf(resource.hostname) !== 'public' && reachOf(endpoint.hostname) === 'public')
    cause = `the internal address ${resource.host}: the app builds it from the Host it receives, not the public name`;
  else if (resource.hostname === endpoint.hostname)
    cause = `port ${resource.port || 'default'} instead of ${endpoint.port || 'the default'}`;
  if (cause !== undefined)
    return {
      summary: `${named}: ${cause}. Clients refuse to sign in to it`,
      fix: PUBLIC_URL_FIX,
      docs: AUTH_DOCS.deployment,
    };
  // Another host: set so in the configuration, or the Host a proxy passed on in place of the public one.
  return {
    summary: `${named}: another host. Clients refuse to sign in to it`,
    fix:
      `This router: \`auth.resourceMetadata.resource\` names it when set: set it to ${endpoint.href}, or leave it unset ` +
      'to name the endpoint (from `publicUrl` when set, else from the host clients use: behind a proxy, pass the Host on and ' +
      "`app.set('trust proxy', 1)`). Another server: its resource or audience setting.",
    docs: AUTH_DOCS.bearer,
  };
}

/** How a resource that clients accept relates to the URL used: the same, or a prefix of it. */
function coverage(resource: URL, endpoint: URL): string {
  const trim = (url: URL): string => url.href.replace(/\/$/, '');
  return trim(resource) === trim(resourceOf(endpoint))
    ? 'is the URL used'
    : `covers the URL used, ${resourceOf(endpoint).href} (a path prefix on its origin, which the SDK clients accept)`;
}

/**
 * RFC 9728 §3.3 and the SDK clients' check: the document's `resource` is the URL the client used, or a prefix of it on
 * the same origin. `used` is the document clients read (a mismatch fails); the others only warn.
 */
export function resourceFinding(doc: Fetched, endpoint: URL, used: boolean): Finding | undefined {
  const id = 'auth.prm-resource';
  const named = doc.json?.resource;
  const resource = parseUrl(named);
  if (resource === undefined)
    return {
      id,
      severity: used ? 'fail' : 'warn',
      summary: `the metadata at ${doc.url} has no \`resource\` URL${named === undefined ? '' : ` (${JSON.stringify(named)})`}`,
      fix: `Name the endpoint's URL as \`resource\` (RFC 9728 §2: REQUIRED): ${resourceOf(endpoint).href}.`,
      docs: AUTH_DOCS.bearer,
    };
  if (resourceCovers(resource, resourceOf(endpoint)))
    return used
      ? { id, severity: 'ok', summary: `\`resource\` ${named as string} ${coverage(resource, endpoint)}` }
      : undefined;
  const mismatch = mismatchOf(resource, resourceOf(endpoint));
  return {
    id,
    severity: used ? 'fail' : 'warn',
    summary: `the metadata at ${doc.url} ${mismatch.summary}`,
    fix: mismatch.fix,
    docs: mismatch.docs,
  };
}

/** Browser clients read the metadata across origins: it needs `Access-Control-Allow-Origin` (MCP authorization, RFC 9728 §3). */
export function corsFinding(id: string, doc: Fetched, origin: string, what: string): Finding {
  if (doc.reply !== undefined && corsReadable(doc.reply, origin))
    return { id, severity: 'ok', summary: `${what} is readable from a browser (CORS)` };
  return {
    id,
    severity: 'warn',
    summary: `${what} at ${doc.url} has no \`Access-Control-Allow-Origin\` for ${origin}: browser clients cannot read it`,
    fix: 'Answer GET on the metadata with `Access-Control-Allow-Origin: *` (it is public); this router does so by itself.',
    docs: AUTH_DOCS.cors,
  };
}

/** An authorization server a document names: its issuer as written, and parsed. */
export interface NamedServer {
  readonly issuer: string;
  readonly url: URL;
}

/** The authorization servers a document names that clients may use (https, or http on loopback); the others reported. */
export function serversFinding(doc: Fetched): { finding: Finding; servers: NamedServer[] } {
  const id = 'auth.prm-authorization-servers';
  const named: unknown = doc.json?.authorization_servers;
  if (!Array.isArray(named) || named.length === 0)
    return { finding: { id, severity: 'info', summary: 'the metadata names no `authorization_servers`' }, servers: [] };
  const servers: NamedServer[] = [];
  const bad: string[] = [];
  for (const issuer of named) {
    const url = parseUrl(issuer);
    if (url === undefined || insecureReason(url) !== undefined) bad.push(JSON.stringify(issuer));
    else servers.push({ issuer: issuer as string, url });
  }
  if (bad.length > 0)
    return {
      servers,
      finding: {
        id,
        severity: 'fail',
        summary: `\`authorization_servers\` names ${bad.join(', ')}: not an https URL`,
        fix: `Name each authorization server by its issuer, an https URL (MCP authorization › Communication Security). ${PUBLIC_URL_FIX}`,
        docs: AUTH_DOCS.deployment,
      },
    };
  const note = servers.length > 1 ? '; clients use the first' : '';
  const list = servers.map((server) => server.issuer).join(', ');
  return { servers, finding: { id, severity: 'ok', summary: `\`authorization_servers\`: ${list}${note}` } };
}

/** RFC 9728 §2 `bearer_methods_supported`: MCP clients send the token in the `Authorization` header only. */
export function bearerMethodsFinding(doc: Fetched): Finding | undefined {
  const methods = doc.json?.bearer_methods_supported;
  if (!Array.isArray(methods) || methods.includes('header')) return undefined;
  return {
    id: 'auth.prm-bearer-methods',
    severity: 'warn',
    summary: `\`bearer_methods_supported\` is ${JSON.stringify(methods)}, without "header"`,
    fix: 'MCP clients send the token in the `Authorization` header (MCP authorization › Token Requirements): list "header", or leave the field out.',
    docs: AUTH_DOCS.bearer,
  };
}
