// Test helper: one keep-alive HTTP/1.1 connection driven by hand, so a test knows which requests share a socket and can send part of a body.

import net from 'node:net';
import { scaled } from './time-scale';

/** One response as read off the socket: status, lower-cased header names, body (none for HEAD or an SSE stream). */
export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * A raw TCP connection to a listening app. Node's http client would quietly open another socket when one looks
 * stuck; this one never does, so "the next request on this connection is answered" means what it says.
 *
 * @example
 * ```ts
 * const connection = new RawConnection(port);
 * const head = await connection.exchange('HEAD', { Accept: 'text/event-stream', 'Mcp-Session-Id': id });
 * connection.close();
 * ```
 */
export class RawConnection {
  private buffer = '';
  private wake: (() => void) | undefined;
  private ended = false;
  private readonly socket: net.Socket;
  /** Resolves when the socket closes: the server closed it (or `close()` was called). */
  readonly closed: Promise<void>;

  /** @param httpVersion - of the request line: `'1.0'` to speak as an HTTP/1.0 client */
  constructor(
    port: number,
    private readonly httpVersion: '1.1' | '1.0' = '1.1',
  ) {
    this.socket = net.connect(port, '127.0.0.1');
    this.closed = new Promise((resolve) =>
      this.socket.once('close', () => {
        this.ended = true;
        this.wake?.();
        resolve();
      }),
    );
    this.socket.setEncoding('utf8');
    this.socket.on('data', (text: string) => {
      this.buffer += text;
      this.wake?.();
    });
    // A server that closes the connection mid-body resets it: the test reads what arrived before.
    this.socket.on('error', () => undefined);
  }

  /** Writes the request line and headers (`Host` added), then `body` if any; `Content-Length` is the caller's. */
  sendHead(method: string, headers: Record<string, string | number>, body: string | Buffer = ''): void {
    const lines = [
      `${method} /mcp HTTP/${this.httpVersion}`,
      'Host: 127.0.0.1',
      ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
    ];
    this.socket.write(`${lines.join('\r\n')}\r\n\r\n`);
    if (body.length > 0) this.socket.write(body);
  }

  /**
   * Sends a request head given line by line, verbatim (the request line first; no Host is added, so a test can
   * send none, two, or one Node's own client would refuse), then `body` (its `Content-Length` is the caller's),
   * and reads the response.
   */
  exchangeLines(lines: readonly string[], body = '', ms = 2_000): Promise<RawResponse> {
    this.socket.write(`${lines.join('\r\n')}\r\n\r\n${body}`);
    return this.response(lines[0]?.split(' ')[0] ?? 'GET', ms);
  }

  /** Writes more of a body already begun with `sendHead`. */
  sendBody(bytes: string | Buffer): Promise<void> {
    return new Promise((resolve, reject) => this.socket.write(bytes, (err) => (err ? reject(err) : resolve())));
  }

  /** Sends one request (`Content-Length` set from `body`) and reads its response. */
  exchange(method: string, headers: Record<string, string>, body = '', ms = scaled(2_000)): Promise<RawResponse> {
    this.sendHead(method, body === '' ? headers : { ...headers, 'Content-Length': Buffer.byteLength(body) }, body);
    return this.response(method, ms);
  }

  /** Reads the next response; rejects when none comes within `ms` (a hung connection, or a server still reading). */
  async response(method: string, ms = scaled(2_000)): Promise<RawResponse> {
    const deadline = Date.now() + ms;
    for (;;) {
      const response = this.take(method);
      if (response !== undefined) return response;
      const left = deadline - Date.now();
      // Closed: nothing more will come.
      if (left < 0 || this.ended)
        throw new Error(
          `no response to ${method} on this connection ${this.ended ? 'before it closed' : `within ${ms} ms`} (got ${JSON.stringify(this.buffer.slice(0, 200))})`,
        );
      // Woken by the next data or the close; the timer is only the deadline.
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left + 1);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  }

  close(): void {
    this.socket.destroy();
  }

  private take(method: string): RawResponse | undefined {
    const end = this.buffer.indexOf('\r\n\r\n');
    if (end < 0) return undefined;
    const [statusLine = '', ...fields] = this.buffer.slice(0, end).split('\r\n');
    const headers = Object.fromEntries(
      fields.map((field) => [
        field.slice(0, field.indexOf(':')).toLowerCase(),
        field.slice(field.indexOf(':') + 1).trim(),
      ]),
    );
    const length =
      method === 'HEAD' || headers['content-type'] === 'text/event-stream' ? 0 : Number(headers['content-length'] ?? 0);
    if (this.buffer.length < end + 4 + length) return undefined;
    const body = this.buffer.slice(end + 4, end + 4 + length);
    this.buffer = this.buffer.slice(end + 4 + length);
    return { status: Number(statusLine.split(' ')[1]), headers, body };
  }
}
