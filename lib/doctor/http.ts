// The doctor's HTTP: one bounded request or stream over node:http(s), with what TLS and the wire said, never following redirects.

import http from 'node:http';
import https from 'node:https';
import type { LookupFunction, Socket } from 'node:net';
import { rootCertificates, type PeerCertificate, type TLSSocket } from 'node:tls';

/** How the doctor reaches servers: fixed for a run. */
export interface HttpSettings {
  /** The most one request may take, headers and body, in ms. */
  readonly timeoutMs: number;
  /** The most of a body read; the rest is dropped and `truncated` set. */
  readonly maxBytes: number;
  /** Extra certificate authorities to trust (PEM), beside Node's. */
  readonly ca?: string | Buffer;
  /** Name resolution (tests resolve a test hostname to 127.0.0.1 with it); Node's by default. */
  readonly lookup?: LookupFunction;
}

/** One request: never followed when redirected (the caller reports a redirect). */
export interface HttpRequest {
  readonly method: string;
  readonly url: string | URL;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
}

/** What TLS said of a connection. */
export interface TlsInfo {
  readonly authorized: boolean;
  readonly error?: string;
  readonly protocol?: string;
  readonly alpn?: string;
  readonly validTo?: string;
  readonly subject?: string;
  readonly issuer?: string;
}

/** The start of an answer: status and headers (names in lower case). */
export interface HttpHead {
  readonly url: string;
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly httpVersion: string;
  readonly tls?: TlsInfo;
}

/** A whole answer, its body read within the bounds. */
export interface HttpReply extends HttpHead {
  readonly body: string;
  readonly truncated: boolean;
  readonly timedOut: boolean;
  /** ms from sending to the last byte. */
  readonly elapsedMs: number;
}

/** How an exchange ended: the body whole, cut at `maxBytes`, or cut at `timeoutMs`. */
export interface ExchangeEnd {
  readonly truncated: boolean;
  readonly timedOut: boolean;
  /** ms from sending to the end. */
  readonly elapsedMs: number;
}

/** Why a request got no answer: refused, unresolvable, a TLS failure, a timeout. */
export class HttpFailure extends Error {
  constructor(
    message: string,
    readonly code: string,
    readonly tls?: TlsInfo,
  ) {
    super(message);
    this.name = 'HttpFailure';
  }
}

/** A header's one value (the first, when repeated). */
export function headerOf(head: HttpHead, name: string): string | undefined {
  const value = head.headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

function tlsOf(socket: Socket | undefined): TlsInfo | undefined {
  const tls = socket as TLSSocket | undefined;
  if (tls === undefined || typeof tls.getPeerCertificate !== 'function') return undefined;
  const cert: Partial<PeerCertificate> = tls.getPeerCertificate() ?? {};
  const name = (part: unknown): string | undefined =>
    part && typeof part === 'object'
      ? Object.entries(part)
          .map(([k, v]) => `${k}=${String(v)}`)
          .join(', ')
      : undefined;
  const error = tls.authorizationError;
  return {
    authorized: tls.authorized,
    ...(error === undefined || error === null ? {} : { error: String(error) }),
    ...(tls.getProtocol() ? { protocol: tls.getProtocol() as string } : {}),
    ...(typeof tls.alpnProtocol === 'string' ? { alpn: tls.alpnProtocol } : {}),
    ...(cert.valid_to ? { validTo: cert.valid_to } : {}),
    ...(name(cert.subject) ? { subject: name(cert.subject) as string } : {}),
    ...(name(cert.issuer) ? { issuer: name(cert.issuer) as string } : {}),
  };
}

/**
 * Sends a request and calls `onHead` with the answer's status and headers, then `onChunk` with each piece of body
 * and the time it arrived (ms since sending), until the body ends, `maxBytes` is read (the connection is then
 * dropped), `signal` aborts, or `timeoutMs` passes (before the head: rejected with ETIMEDOUT; after it: resolved
 * with `timedOut`). Resolves when the body is over.
 *
 * @example
 * ```ts
 * await exchange(settings, { method: 'GET', url }, (head) => {}, (chunk, atMs) => {});
 * ```
 */
export function exchange(
  settings: HttpSettings,
  request: HttpRequest,
  onHead: (head: HttpHead) => void,
  onChunk: (chunk: string, atMs: number) => void,
  signal?: AbortSignal,
): Promise<ExchangeEnd> {
  const url = new URL(request.url);
  const secure = url.protocol === 'https:';
  const started = performance.now();
  return new Promise((resolve, reject) => {
    let settled = false;
    let read = 0;
    let socket: Socket | undefined;
    let headSeen = false;
    const finish = (error?: HttpFailure, truncated = false, timedOut = false): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (error) reject(error);
      else resolve({ truncated, timedOut, elapsedMs: performance.now() - started });
    };
    const options: https.RequestOptions = {
      method: request.method,
      headers: {
        ...request.headers,
        ...(request.body === undefined ? {} : { 'content-length': Buffer.byteLength(request.body) }),
      },
      agent: false,
      ...(settings.lookup ? { lookup: settings.lookup } : {}),
      // `ca` replaces Node's roots: the extra authorities join them.
      ...(secure && settings.ca !== undefined ? { ca: [...rootCertificates, settings.ca] } : {}),
    };
    const req = (secure ? https : http).request(url, options, (res) => {
      headSeen = true;
      onHead({
        url: url.href,
        status: res.statusCode ?? 0,
        headers: res.headers,
        httpVersion: res.httpVersion,
        ...(secure && tlsOf(socket) ? { tls: tlsOf(socket) as TlsInfo } : {}),
      });
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        read += Buffer.byteLength(chunk);
        if (read > settings.maxBytes) {
          req.destroy();
          finish(undefined, true);
          return;
        }
        onChunk(chunk, performance.now() - started);
      });
      res.on('end', () => finish());
      res.on('close', () => finish());
      res.on('error', () => finish());
    });
    const timer = setTimeout(() => {
      req.destroy();
      if (headSeen) finish(undefined, false, true);
      else
        finish(
          new HttpFailure(`no answer within ${settings.timeoutMs} ms`, 'ETIMEDOUT', secure ? tlsOf(socket) : undefined),
        );
    }, settings.timeoutMs);
    req.on('socket', (s) => (socket = s));
    req.on('error', (error: NodeJS.ErrnoException) =>
      finish(new HttpFailure(error.message, error.code ?? 'EREQUEST', secure ? tlsOf(socket) : undefined)),
    );
    signal?.addEventListener('abort', () => {
      req.destroy();
      finish();
    });
    req.end(request.body);
  });
}

/**
 * One request, its body read whole within the bounds.
 *
 * @example
 * ```ts
 * const reply = await send(settings, { method: 'GET', url: 'https://mcp.example.com/.well-known/oauth-protected-resource/mcp' });
 * ```
 */
export async function send(settings: HttpSettings, request: HttpRequest): Promise<HttpReply> {
  let head: HttpHead | undefined;
  let body = '';
  const end = await exchange(
    settings,
    request,
    (h) => (head = h),
    (chunk) => (body += chunk),
  );
  if (head === undefined) throw new HttpFailure('the connection closed before an answer', 'ECONNRESET');
  return { ...head, body, ...end };
}
