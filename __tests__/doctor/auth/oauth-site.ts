// A hand-written MCP resource and authorization server over TLS on a test host name: each test says what it answers.

import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo, LookupFunction } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { HttpSettings } from '../../../lib/doctor/http';

/** The site's host name: `.test` is reserved for testing (RFC 2606 §2); the lookup hook resolves it to 127.0.0.1. */
export const SITE_HOST = 'auth.doctor.test';

/** What the site answers: the 401 of POST /mcp, and JSON documents by path. */
export interface SiteSpec {
  /** The `WWW-Authenticate` of the 401; `null` sends the 401 without one. */
  readonly challenge: string | null;
  /** Documents by path (query included when it matters), served as JSON to GET. */
  readonly documents: Readonly<Record<string, unknown>>;
  /** Redirects by path: 302 to the target. */
  readonly redirects?: Readonly<Record<string, string>>;
  /** `Access-Control-Allow-Origin: *` on the documents. Defaults to true. */
  readonly cors?: boolean;
}

export interface OAuthSite {
  /** `https://auth.doctor.test:<port>` */
  readonly base: string;
  /** The doctor's HTTP settings for it: the site's certificate trusted, its name resolved to 127.0.0.1. */
  readonly http: HttpSettings;
  /** Sets what the site answers from now on. */
  serve(make: (base: string) => SiteSpec): void;
  close(): Promise<void>;
}

/** A resolver answering `SITE_HOST` with 127.0.0.1 and no other name (the tests never reach the network). */
export const siteLookup: LookupFunction = (hostname, options, callback) => {
  if (hostname !== SITE_HOST) {
    const error: NodeJS.ErrnoException = Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), {
      code: 'ENOTFOUND',
    });
    callback(error, '', 0);
    return;
  }
  if (options.all)
    (callback as (e: null, all: { address: string; family: number }[]) => void)(null, [
      { address: '127.0.0.1', family: 4 },
    ]);
  else callback(null, '127.0.0.1', 4);
};

/** A self-signed certificate for `SITE_HOST`, made with the openssl CLI in a directory removed at once. */
async function certificate(): Promise<{ cert: string; key: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'doctor-auth-'));
  try {
    await promisify(execFile)('openssl', [
      ...['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'],
      ...['-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'), '-days', '1', '-subj', `/CN=${SITE_HOST}`],
      ...['-addext', `subjectAltName=DNS:${SITE_HOST}`],
    ]);
    return { cert: readFileSync(join(dir, 'cert.pem'), 'utf8'), key: readFileSync(join(dir, 'key.pem'), 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Starts the site on a port of 127.0.0.1, answering nothing until `serve` says what. */
export async function startOAuthSite(): Promise<OAuthSite> {
  const { cert, key } = await certificate();
  let spec: SiteSpec = { challenge: null, documents: {} };
  const server: Server = createServer({ cert, key }, (req, res) => {
    const path = req.url ?? '/';
    const cors = spec.cors === false ? {} : { 'access-control-allow-origin': '*' };
    if (req.method === 'POST' && path === '/mcp') {
      req.resume();
      const challenge = spec.challenge === null ? {} : { 'www-authenticate': spec.challenge };
      res.writeHead(401, { 'content-type': 'application/json', ...challenge });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Unauthorized' } }));
      return;
    }
    const target = spec.redirects?.[path];
    if (target !== undefined) {
      res.writeHead(302, { location: target }).end();
      return;
    }
    const document = spec.documents[path];
    if (req.method !== 'GET' || document === undefined) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json', ...cors }).end(JSON.stringify(document));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `https://${SITE_HOST}:${(server.address() as AddressInfo).port}`;
  return {
    base,
    http: { timeoutMs: 5_000, maxBytes: 1_000_000, ca: cert, lookup: siteLookup },
    serve: (make) => (spec = make(base)),
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Protected-resource metadata MCP clients accept, for the endpoint `<base>/mcp` with `base` as its authorization server. */
export const goodResource = (base: string): Record<string, unknown> => ({
  resource: `${base}/mcp`,
  authorization_servers: [base],
  scopes_supported: ['mcp'],
  bearer_methods_supported: ['header'],
});

/** Authorization server metadata MCP clients accept, for the issuer `base`. */
export const goodServer = (base: string): Record<string, unknown> => ({
  issuer: base,
  authorization_endpoint: `${base}/authorize`,
  token_endpoint: `${base}/token`,
  registration_endpoint: `${base}/register`,
  response_types_supported: ['code'],
  grant_types_supported: ['authorization_code', 'refresh_token'],
  code_challenge_methods_supported: ['S256'],
  token_endpoint_auth_methods_supported: ['none'],
  authorization_response_iss_parameter_supported: true,
  client_id_metadata_document_supported: true,
});

/** The challenge naming the metadata at the path-inserted well-known URL, with a scope. */
export const goodChallenge = (base: string): string =>
  `Bearer resource_metadata="${base}/.well-known/oauth-protected-resource/mcp", scope="mcp"`;
