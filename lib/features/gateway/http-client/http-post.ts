// One POST to an upstream over node:http(s), on the client's own pool of keep-alive connections: its status, headers and bounded body.

import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { Readable } from 'node:stream';
import type { AbortSource } from '../../../core/protocol/abort';

/**
 * How long a pooled connection may sit idle before the client closes it: under Node's default `keepAliveTimeout` of
 * 5 s, so the client, not the server, ends an idle connection, and a request is not written to one the server is
 * closing at that moment (RFC 9112 § 9.6); Node's agent shortens it to a second under a shorter `Keep-Alive: timeout`
 * the server announces.
 */
const IDLE_CONNECTION_MS = 4_000;

/**
 * One upstream client's connections: requests reuse an idle connection to the same origin rather than open one each
 * (RFC 9112 § 9.3, persistence). Closed with the client.
 */
export class UpstreamConnections {
  readonly #http = new HttpAgent({ keepAlive: true, timeout: IDLE_CONNECTION_MS });
  readonly #https = new HttpsAgent({ keepAlive: true, timeout: IDLE_CONNECTION_MS });

  agentFor(protocol: string): HttpAgent {
    return protocol === 'https:' ? this.#https : this.#http;
  }

  /** Ends every connection, idle or in use. */
  close(): void {
    this.#http.destroy();
    this.#https.destroy();
  }
}

/** What a POST came back with: its status, a header, and its body, read once in one of three ways. */
export interface PostAnswer {
  readonly status: number;
  /** A response header's value (several joined with `, `, as `Headers.get` does), or undefined. */
  header(name: string): string | undefined;
  /** The body as a web stream (an SSE reply, read event by event). */
  stream(): ReadableStream<Uint8Array>;
  /** The whole body as UTF-8; undefined, and the connection closed, once it passes `limit` bytes. */
  text(limit: number): Promise<string | undefined>;
  /** Drops the body unread: the connection is closed, so nothing of it is read. */
  discard(): void;
}

/** A POST's failure before an answer: the connection could not be made or broke, or the signal fired. */
export class PostFailed extends Error {
  override readonly name = 'PostFailed';
}

class Answer implements PostAnswer {
  constructor(private readonly response: IncomingMessage) {}

  get status(): number {
    return this.response.statusCode ?? 0;
  }

  header(name: string): string | undefined {
    const value = this.response.headers[name];
    return Array.isArray(value) ? value.join(', ') : value;
  }

  stream(): ReadableStream<Uint8Array> {
    return Readable.toWeb(this.response) as ReadableStream<Uint8Array>;
  }

  text(limit: number): Promise<string | undefined> {
    const { response } = this;
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > limit) {
          response.destroy();
          resolve(undefined);
        } else chunks.push(chunk);
      });
      response.once('end', () =>
        resolve(chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8')),
      );
      response.once('error', () => reject(new PostFailed('the connection broke')));
      response.once('close', () => {
        if (!response.complete) reject(new PostFailed('the connection broke'));
      });
    });
  }

  discard(): void {
    this.response.destroy();
  }
}

/**
 * The request's header fields by lower-case name, a name given twice in different cases sent once with its values
 * joined by `, ` (as `fetch`'s `Headers` does; RFC 9110 § 5.3), and the body's length.
 */
function headerFields(headers: Record<string, string>, body: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    fields[lower] = lower in fields ? `${fields[lower]}, ${value}` : value;
  }
  fields['content-length'] = String(Buffer.byteLength(body));
  return fields;
}

/** The request of one POST. */
export interface PostRequest {
  readonly url: URL;
  readonly headers: Record<string, string>;
  readonly body: string;
  readonly signal: AbortSource;
  readonly connections: UpstreamConnections;
  /**
   * Whether the request may be sent a second time when a reused connection fails before any answer: only for a
   * request whose repetition changes nothing (a list, a read), since the upstream may have read and acted on it
   * before the connection broke (RFC 9110 § 9.2.2, RFC 9112 § 9.3.1).
   */
  readonly repeatable: boolean;
}

/**
 * Posts `body` and resolves with the answer once its headers are in; rejects with {@link PostFailed} when the
 * connection fails, and with the signal's reason when it fires (the request and its connection are destroyed). A
 * redirect is a failure, as `fetch(…, { redirect: 'error' })` makes it: an MCP endpoint is posted to where it is.
 */
export function post(request: PostRequest, retried = false): Promise<PostAnswer> {
  const { url, signal, connections } = request;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<PostAnswer>((resolve, reject) => {
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const outgoing = send(url, {
      method: 'POST',
      agent: connections.agentFor(url.protocol),
      headers: headerFields(request.headers, request.body),
    });
    const onAbort = (): void => {
      outgoing.destroy();
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    let answered = false;
    outgoing.once('response', (response) => {
      answered = true;
      const answer = new Answer(response);
      const status = response.statusCode ?? 0;
      if (status >= 300 && status < 400) {
        response.destroy();
        reject(new PostFailed('answered with a redirect'));
        return;
      }
      // Destroying the answer (the signal firing while it is read) breaks its read, which the reader reports.
      response.once('close', () => signal.removeEventListener('abort', onAbort));
      resolve(answer);
    });
    // Listened to for the request's whole life: an 'error' with no listener would end the process.
    outgoing.on('error', (error: NodeJS.ErrnoException) => {
      signal.removeEventListener('abort', onAbort);
      if (signal.aborted) return;
      // A pooled connection the upstream had closed (a restart, its idle timeout), its close not yet read here: a
      // request whose repetition changes nothing is sent once more, as Node's documentation advises for a reused
      // keep-alive socket. Never a tools/call (the upstream may have run it), once an answer began, or on a fresh connection.
      if (
        request.repeatable &&
        !retried &&
        !answered &&
        outgoing.reusedSocket &&
        (error.code === 'ECONNRESET' || error.code === 'EPIPE')
      )
        post(request, true).then(resolve, reject);
      else reject(new PostFailed('could not be reached'));
    });
    outgoing.end(request.body);
  });
}
