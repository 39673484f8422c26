// The doctor's HTTP: one bounded request or stream over node:http(s), with what TLS and the wire said, never following redirects.

import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction, type Socket } from 'node:net';
import { StringDecoder } from 'node:string_decoder';
import { connect as connectTls, rootCertificates, type PeerCertificate, type TLSSocket } from 'node:tls';

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
  /** The run's deadline: when it aborts, every request in flight ends and no new one starts. */
  readonly signal?: AbortSignal;
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
  /** ms from sending to the first byte of the body; absent for an empty body. */
  readonly firstByteMs?: number;
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
 * with `timedOut`). Resolves when the body is over; rejects with EDEADLINE when `settings.signal` (the run's
 * deadline) aborts first.
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
  const url = withoutUserinfo(new URL(request.url));
  const secure = url.protocol === 'https:';
  const started = performance.now();
  if (settings.signal?.aborted) return Promise.reject(deadlineFailure());
  return new Promise((resolve, reject) => {
    let settled = false;
    let read = 0;
    let socket: Socket | undefined;
    let headSeen = false;
    // Bytes counted and cut exactly at maxBytes, then decoded: a character split between pieces is kept whole.
    const decoder = new StringDecoder('utf8');
    const finish = (error?: HttpFailure, truncated = false, timedOut = false): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      settings.signal?.removeEventListener('abort', onDeadline);
      signal?.removeEventListener('abort', onAbort);
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
      res.on('data', (chunk: Buffer) => {
        const room = settings.maxBytes - read;
        read += chunk.length;
        const text = decoder.write(chunk.length > room ? chunk.subarray(0, room) : chunk);
        if (text) onChunk(text, performance.now() - started);
        if (read > settings.maxBytes) {
          req.destroy();
          finish(undefined, true);
        }
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
    const onAbort = (): void => {
      req.destroy();
      finish();
    };
    const onDeadline = (): void => {
      req.destroy();
      finish(deadlineFailure());
    };
    req.on('socket', (s) => (socket = s));
    req.on('error', (error: NodeJS.ErrnoException) =>
      finish(new HttpFailure(error.message, error.code ?? 'EREQUEST', secure ? tlsOf(socket) : undefined)),
    );
    signal?.addEventListener('abort', onAbort, { once: true });
    settings.signal?.addEventListener('abort', onDeadline, { once: true });
    req.end(request.body);
  });
}

/** The failure of a request the run's deadline ended. */
function deadlineFailure(): HttpFailure {
  return new HttpFailure('the run’s deadline passed', 'EDEADLINE');
}

/** A URL without its user and password: never sent (Node would send them as Basic credentials), never printed. */
export function withoutUserinfo(url: URL): URL {
  if (url.username === '' && url.password === '') return url;
  const bare = new URL(url.href);
  bare.username = '';
  bare.password = '';
  return bare;
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
  const pieces: string[] = [];
  let firstByteMs: number | undefined;
  const end = await exchange(
    settings,
    request,
    (h) => (head = h),
    (chunk, atMs) => {
      pieces.push(chunk);
      firstByteMs ??= atMs;
    },
  );
  if (head === undefined) throw new HttpFailure('the connection closed before an answer', 'ECONNRESET');
  return { ...head, body: pieces.join(''), ...end, ...(firstByteMs === undefined ? {} : { firstByteMs }) };
}

/**
 * The protocols a TLS server agrees to over ALPN when offered HTTP/2 and HTTP/1.1 (RFC 7301): `h2`, `http/1.1`, or
 * undefined when it names none. The doctor's requests speak HTTP/1.1; this says what an HTTP/2 client would get.
 *
 * @example
 * ```ts
 * const alpn = await alpnOf(settings, new URL('https://mcp.example.com/mcp'));
 * ```
 */
export function alpnOf(settings: HttpSettings, url: URL): Promise<string | undefined> {
  if (settings.signal?.aborted) return Promise.reject(deadlineFailure());
  return new Promise((resolve, reject) => {
    const socket = connectTls({
      host: url.hostname.replace(/^\[|\]$/g, ''),
      port: Number(url.port || 443),
      ...(isIP(url.hostname.replace(/^\[|\]$/g, '')) ? {} : { servername: url.hostname }),
      ALPNProtocols: ['h2', 'http/1.1'],
      ...(settings.ca !== undefined ? { ca: [...rootCertificates, settings.ca] } : {}),
      ...(settings.lookup ? { lookup: settings.lookup } : {}),
      timeout: settings.timeoutMs,
    });
    const onDeadline = (): void => void socket.destroy(deadlineFailure());
    settings.signal?.addEventListener('abort', onDeadline, { once: true });
    socket.once('close', () => settings.signal?.removeEventListener('abort', onDeadline));
    socket.once('secureConnect', () => {
      const alpn = socket.alpnProtocol;
      socket.destroy();
      resolve(typeof alpn === 'string' ? alpn : undefined);
    });
    socket.once('timeout', () => {
      socket.destroy();
      reject(new HttpFailure(`no TLS handshake within ${settings.timeoutMs} ms`, 'ETIMEDOUT'));
    });
    socket.once('error', (error: NodeJS.ErrnoException) =>
      reject(new HttpFailure(error.message, error.code ?? 'ETLS')),
    );
  });
}
