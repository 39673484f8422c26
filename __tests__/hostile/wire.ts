// Shared by the hostile suites: a raw HTTP client with a time limit, the shape every JSON-RPC answer must have,
// and a check that nothing was added to Object.prototype.

import { request as httpRequest, type Agent, type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http';
import { Readable } from 'node:stream';
import { SseReader } from '../helpers/sse';
import { scaled } from '../helpers/time-scale';

/** What came back from one request. */
export interface WireResponse {
  status: number;
  headers: IncomingHttpHeaders;
  /** The body as text ('' when there was none). */
  text: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  json: unknown;
}

/** One request, byte for byte: any method, any headers (an array value sends the header several times), any body. */
export interface WireRequest {
  method?: string;
  /** Path and query, e.g. `/mcp?access_token=x`. */
  path: string;
  headers?: OutgoingHttpHeaders;
  body?: string | Buffer | Uint8Array;
  /** Sends the body in these writes instead, without Content-Length: Node sends it with Transfer-Encoding: chunked. */
  chunks?: ReadonlyArray<string | Buffer>;
  /** Longer than this is a hang: the request is destroyed and the promise rejects. Defaults to 5 s. */
  timeoutMs?: number;
  /** The agent (a keep-alive one, to reuse a connection); defaults to a fresh connection per request. */
  agent?: Agent;
}

/** Longest a request may take before it counts as a hang. */
export const REQUEST_TIMEOUT_MS = scaled(5_000);

/**
 * Sends one request on a fresh connection (so a response that never ends cannot block the next request) and
 * reads the whole response; rejects when it takes longer than `timeoutMs`.
 */
export function send(baseUrl: string, req: WireRequest): Promise<WireResponse> {
  const url = new URL(req.path, baseUrl);
  return new Promise((resolve, reject) => {
    // A server may answer (413) before it read the whole body and close the connection: the answer counts.
    let answered = false;
    const outgoing = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path: `${url.pathname}${url.search}`,
        method: req.method ?? 'POST',
        headers: req.headers ?? {},
        agent: req.agent ?? false,
      },
      (res) => {
        answered = true;
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          clearTimeout(timer);
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown;
          try {
            json = text === '' ? undefined : JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
        });
        res.on('error', reject);
      },
    );
    const timer = setTimeoutReal(() => {
      outgoing.destroy();
      reject(
        new Error(
          `${req.method ?? 'POST'} ${req.path} did not complete within ${req.timeoutMs ?? REQUEST_TIMEOUT_MS} ms (a hang)`,
        ),
      );
    }, req.timeoutMs ?? REQUEST_TIMEOUT_MS);
    outgoing.on('error', (err) => {
      if (answered) return;
      clearTimeout(timer);
      reject(err);
    });
    for (const chunk of req.chunks ?? []) outgoing.write(chunk);
    outgoing.end(req.body === undefined ? undefined : Buffer.from(req.body));
  });
}

/** An open response, its body still to be read: as SSE events, or whole as text (one or the other). */
export interface WireStream {
  status: number;
  headers: IncomingHttpHeaders;
  /** The body as SSE events, read as they arrive. */
  events(): SseReader;
  /** The whole body, once the server ends it. */
  text(): Promise<string>;
  /** Hangs up (the server sees the client go). */
  close(): void;
}

/** Sends a request and resolves once the response's headers arrive; its body is then read as it comes. */
export function openStream(baseUrl: string, req: WireRequest): Promise<WireStream> {
  const url = new URL(req.path, baseUrl);
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path: `${url.pathname}${url.search}`,
        method: req.method ?? 'GET',
        headers: req.headers ?? {},
        agent: req.agent ?? false,
      },
      (res) => {
        clearTimeout(timer);
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          events: () => new SseReader(Readable.toWeb(res) as unknown as ReadableStream<Uint8Array>),
          text: async () => {
            const chunks: Buffer[] = [];
            for await (const chunk of res) chunks.push(chunk as Buffer);
            return Buffer.concat(chunks).toString('utf8');
          },
          close: () => outgoing.destroy(),
        });
      },
    );
    const timer = setTimeoutReal(() => {
      outgoing.destroy();
      reject(
        new Error(
          `${req.method ?? 'GET'} ${req.path} sent no headers within ${req.timeoutMs ?? REQUEST_TIMEOUT_MS} ms (a hang)`,
        ),
      );
    }, req.timeoutMs ?? REQUEST_TIMEOUT_MS);
    outgoing.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    for (const chunk of req.chunks ?? []) outgoing.write(chunk);
    outgoing.end(req.body === undefined ? undefined : Buffer.from(req.body));
  });
}

/** Resolves with `promise`, or rejects after `ms` (measured with the real clock, even under fake timers). */
export function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeoutReal(() => reject(new Error(`${what}: nothing within ${ms} ms`)), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (err: unknown) => {
        clearTimeout(timer);
        reject(err);
      },
    );
  });
}

// The real setTimeout, captured before any test installs fake timers: a time limit must not depend on them.
const realSetTimeout = globalThis.setTimeout;
function setTimeoutReal(fn: () => void, ms: number): NodeJS.Timeout {
  return realSetTimeout(fn, ms);
}

/** A JSON-RPC id as the server sees it: a string or a finite number (MCP never uses null). */
export function isWireId(value: unknown): value is string | number {
  return typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));
}

/**
 * JSON-RPC 2.0 reserves -32768…-32000 (-32700 parse error, -32600…-32603, -32000…-32099 server errors, which
 * hold MCP's -32002 and -32042); every error this router sends is in that range.
 */
export function isJsonRpcErrorCode(code: unknown): boolean {
  return Number.isInteger(code) && (code as number) >= -32768 && (code as number) <= -32000;
}

/** The ids a body's messages carry (for a batch, every element's), as JSON text, so 1 and "1" differ. */
export function idsOf(parsed: unknown): Set<string> {
  const ids = new Set<string>();
  for (const message of Array.isArray(parsed) ? parsed : [parsed]) {
    if (
      typeof message === 'object' &&
      message !== null &&
      !Array.isArray(message) &&
      isWireId((message as Record<string, unknown>).id)
    ) {
      ids.add(JSON.stringify((message as Record<string, unknown>).id));
    }
  }
  return ids;
}

/**
 * Fails unless `message` is one JSON-RPC response: `jsonrpc: '2.0'`, exactly one of `result` (an object) and
 * `error` (an integer code in the reserved range, a string message), and an id that is one of `ids` (a
 * success) or one of `ids` or null (an error).
 */
export function expectResponseShape(message: unknown, ids: ReadonlySet<string>): void {
  expect(message).toEqual(expect.objectContaining({ jsonrpc: '2.0' }));
  const response = message as Record<string, unknown>;
  expect(Object.keys(response).sort()).toEqual(expect.arrayContaining(['id', 'jsonrpc']));
  expect('result' in response !== 'error' in response).toBe(true);
  const idText = JSON.stringify(response.id);
  if ('result' in response) {
    expect(typeof response.result === 'object' && response.result !== null && !Array.isArray(response.result)).toBe(
      true,
    );
    expect([...ids]).toContain(idText);
  } else {
    const error = response.error as Record<string, unknown>;
    expect(isJsonRpcErrorCode(error.code)).toBe(true);
    expect(typeof error.message).toBe('string');
    expect([...ids, 'null']).toContain(idText);
  }
}

/** Every own property name of Object.prototype, to compare before and after hostile input. */
export function prototypeSnapshot(): string[] {
  return Object.getOwnPropertyNames(Object.prototype).sort();
}

/** Fails when hostile input added anything to Object.prototype (or to a fresh object through it). */
export function expectPrototypeClean(before: readonly string[]): void {
  expect(prototypeSnapshot()).toEqual(before);
  expect(Object.keys(Object.prototype)).toEqual([]);
  const probe: Record<string, unknown> = {};
  for (const key of ['polluted', 'isAdmin', 'admin', 'x']) expect(probe[key]).toBeUndefined();
}
