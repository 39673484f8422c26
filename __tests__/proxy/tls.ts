// The proxy tests' TLS: a CA and a server certificate made with the openssl CLI, and a fetch that trusts that CA and
// resolves the test host name to 127.0.0.1 itself (a lookup hook, SNI by servername), so /etc/hosts is never touched.

import { execFile } from 'node:child_process';
import type { LookupFunction } from 'node:net';
import { lookup as dnsLookup } from 'node:dns';
import { readFileSync, writeFileSync } from 'node:fs';
import { Agent, request as httpsRequest } from 'node:https';
import type { IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { promisify } from 'node:util';

/** The host name the tests serve the router under: `.test` is reserved for testing (RFC 2606 §2), no DNS knows it. */
export const PUBLIC_HOST = 'mcp.proxy.test';

/** Files of a test CA and of one server certificate it signed. */
export interface TestCertificates {
  /** The CA's certificate (PEM), for clients to trust. */
  readonly caPath: string;
  readonly ca: string;
  /** The server's certificate (PEM) and key, for the proxy. */
  readonly certPath: string;
  readonly keyPath: string;
}

const run = promisify(execFile);

/**
 * Makes, in `dir`, a CA valid for 30 days and a certificate it signed for `hosts` (subjectAltName DNS names), valid
 * for `days` (30 unless a test wants one about to expire), both on P-256 keys, with the openssl CLI.
 */
export async function makeCertificates(
  dir: string,
  hosts: readonly string[] = [PUBLIC_HOST],
  days = 30,
): Promise<TestCertificates> {
  const at = (name: string): string => join(dir, name);
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  await run('openssl', [
    ...['req', '-x509', ...ec, '-keyout', at('ca.key'), '-out', at('ca.pem'), '-days', '30'],
    ...['-subj', '/CN=express-mcp-router proxy test CA'],
    ...['-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign'],
  ]);
  await run('openssl', [
    'req',
    ...ec,
    '-keyout',
    at('server.key'),
    '-out',
    at('server.csr'),
    '-subj',
    `/CN=${hosts[0]}`,
  ]);
  writeFileSync(
    at('server.ext'),
    [
      `subjectAltName=${hosts.map((host) => `DNS:${host}`).join(',')}`,
      'basicConstraints=critical,CA:FALSE',
      'keyUsage=critical,digitalSignature',
      'extendedKeyUsage=serverAuth',
    ].join('\n'),
  );
  await run('openssl', [
    ...['x509', '-req', '-in', at('server.csr'), '-CA', at('ca.pem'), '-CAkey', at('ca.key'), '-CAcreateserial'],
    ...['-out', at('server.pem'), '-days', String(days), '-extfile', at('server.ext')],
  ]);
  return {
    caPath: at('ca.pem'),
    ca: readFileSync(at('ca.pem'), 'utf8'),
    certPath: at('server.pem'),
    keyPath: at('server.key'),
  };
}

/** A `lookup` for net/tls connections that answers `names` with their address and leaves every other name to DNS. */
export function lookupWith(names: Readonly<Record<string, string>>): LookupFunction {
  return (hostname, options, callback) => {
    const address = names[hostname.toLowerCase()];
    if (address === undefined) {
      dnsLookup(hostname, options, callback as never);
      return;
    }
    const family = address.includes(':') ? 6 : 4;
    if (options.all)
      (callback as (error: null, found: { address: string; family: number }[]) => void)(null, [{ address, family }]);
    else callback(null, address, family);
  };
}

/** A WHATWG fetch over node:https with its own agent, and the agent's end. */
export interface TrustingFetch {
  readonly fetch: typeof fetch;
  /** Closes the agent's sockets (kept alive between requests). */
  close(): void;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * A fetch for the SDK clients (their `fetch` option), the sign-in flow and raw requests: TLS verified against `ca`
 * only, the server name sent by SNI and checked against the certificate, `names` resolved by {@link lookupWith}.
 * Streams response bodies as they arrive (SSE); honours `redirect` ('follow' up to 5, 'manual' returns the 3xx) and
 * `signal`. Plain `http:` URLs are refused: everything here goes through the proxy.
 */
export function trustingFetch(
  ca: string,
  names: Readonly<Record<string, string>> = { [PUBLIC_HOST]: '127.0.0.1' },
): TrustingFetch {
  const agent = new Agent({ ca, keepAlive: true, lookup: lookupWith(names) });
  const once = async (url: URL, init: RequestInit, body: Buffer | undefined): Promise<Response> => {
    if (url.protocol !== 'https:') throw new TypeError(`trustingFetch: only https: URLs, got ${url.href}`);
    const headers = new Headers(init.headers);
    if (body !== undefined) headers.set('content-length', String(body.length));
    init.signal?.throwIfAborted();
    const answer = await new Promise<IncomingMessage>((resolve, reject) => {
      const req = httpsRequest(url, {
        agent,
        method: init.method ?? 'GET',
        headers: Object.fromEntries(headers),
        servername: url.hostname,
      });
      const abort = (): void => {
        req.destroy(init.signal?.reason as Error);
      };
      init.signal?.addEventListener('abort', abort, { once: true });
      req.once('response', (res) => {
        res.once('close', () => init.signal?.removeEventListener('abort', abort));
        resolve(res);
      });
      req.once('error', (error) => {
        init.signal?.removeEventListener('abort', abort);
        reject(error);
      });
      req.end(body);
    });
    return toResponse(answer, url);
  };
  const fetchOver = async (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    const request = input instanceof Request ? input : undefined;
    let url = new URL(request?.url ?? String(input));
    let options: RequestInit = { method: request?.method, headers: request?.headers, signal: request?.signal, ...init };
    let body = await bodyOf(options, request);
    for (let hops = 0; ; hops++) {
      const response = await once(url, options, body);
      const location = response.headers.get('location');
      if ((options.redirect ?? 'follow') !== 'follow' || !REDIRECTS.has(response.status) || location === null)
        return response;
      if (hops === 5) throw new TypeError(`trustingFetch: too many redirects from ${url.href}`);
      await response.body?.cancel();
      url = new URL(location, url);
      if (
        response.status === 303 ||
        ((response.status === 301 || response.status === 302) && options.method === 'POST')
      ) {
        options = { ...options, method: 'GET' };
        body = undefined;
      }
    }
  };
  return { fetch: fetchOver as typeof fetch, close: () => agent.destroy() };
}

/** The request body as bytes (strings, URLSearchParams, byte arrays, a Request's body), setting a form's type. */
async function bodyOf(init: RequestInit, request: Request | undefined): Promise<Buffer | undefined> {
  const body = init.body ?? (request?.body === null || request === undefined ? undefined : await request.arrayBuffer());
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return Buffer.from(body);
  if (body instanceof URLSearchParams) {
    const headers = new Headers(init.headers);
    if (!headers.has('content-type')) headers.set('content-type', 'application/x-www-form-urlencoded;charset=UTF-8');
    init.headers = headers;
    return Buffer.from(body.toString());
  }
  if (body instanceof ArrayBuffer) return Buffer.from(body);
  if (ArrayBuffer.isView(body)) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  throw new TypeError(`trustingFetch: unsupported body ${Object.prototype.toString.call(body)}`);
}

/** A WHATWG Response over node's, its body streamed. */
function toResponse(res: IncomingMessage, url: URL): Response {
  const headers = new Headers();
  for (let i = 0; i < res.rawHeaders.length; i += 2) headers.append(res.rawHeaders[i]!, res.rawHeaders[i + 1]!);
  const status = res.statusCode ?? 0;
  const empty = status === 204 || status === 304 || status < 200;
  if (empty) res.resume();
  const response = new Response(empty ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>), {
    status,
    statusText: res.statusMessage,
    headers,
  });
  Object.defineProperty(response, 'url', { value: url.href });
  return response;
}
