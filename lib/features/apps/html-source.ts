// Where an app's HTML comes from: a string, a file (re-read when it changes, outside production), or a host route.

import fs from 'node:fs';
import { McpConfigError } from '../../options/config-error';
import { ErrorCode, JsonRpcError } from '../../core/jsonrpc/errors';
import type { RequestContext } from '../../core/registry/request-context';
import { DEFAULT_ROUTE_TIMEOUT_MS, dispatchInProcess, type RequestDispatcher } from '../../edge/host-routes/in-process';

/** Gives the app's HTML for one `resources/read`. */
export type HtmlSource = (ctx: RequestContext) => string | Promise<string>;

const readFailed = (label: string, why: string): JsonRpcError =>
  new JsonRpcError(ErrorCode.InternalError, `${label}: ${why}`);

/** @throws {McpConfigError} when the HTML is larger than `maxBytes` */
export function stringSource(html: string, maxBytes: number, label: string): HtmlSource {
  if (Buffer.byteLength(html) > maxBytes)
    throw new McpConfigError('ERR_MCP_INVALID_OPTION', `${label} html is larger than maxBytes (${maxBytes} bytes)`);
  return () => html;
}

/**
 * The file, read now; with `watch`, each read compares its mtime and size (fs.stat) with the last read's and reads
 * it again when either changed, so an edit shows on the next `resources/read` without a restart.
 *
 * @throws {McpConfigError} when the file cannot be read now, or is larger than `maxBytes`
 */
export function fileSource(file: string, maxBytes: number, label: string, watch: boolean): HtmlSource {
  let kept: { mtimeMs: number; size: number; html: string };
  try {
    kept = readBounded(fs.statSync(file), () => fs.readFileSync(file, 'utf8'), maxBytes, label);
  } catch (error) {
    if (error instanceof McpConfigError) throw error;
    throw new McpConfigError(
      'ERR_MCP_INVALID_OPTION',
      `${label} file ${JSON.stringify(file)} cannot be read: ${String(error)}`,
    );
  }
  if (!watch) return () => kept.html;
  return async () => {
    try {
      const stat = await fs.promises.stat(file);
      if (stat.mtimeMs === kept.mtimeMs && stat.size === kept.size) return kept.html;
      const html = await fs.promises.readFile(file, 'utf8');
      kept = readBounded(stat, () => html, maxBytes, label);
      return kept.html;
    } catch (error) {
      throw readFailed(label, error instanceof McpConfigError ? error.message : 'its file cannot be read');
    }
  };
}

function readBounded(
  stat: fs.Stats,
  read: () => string,
  maxBytes: number,
  label: string,
): { mtimeMs: number; size: number; html: string } {
  if (stat.size > maxBytes)
    throw new McpConfigError('ERR_MCP_INVALID_OPTION', `${label} file is larger than maxBytes (${maxBytes} bytes)`);
  return { mtimeMs: stat.mtimeMs, size: stat.size, html: read() };
}

/**
 * A GET of `route` dispatched in-process through the host app at each read, as a browser's would be (`Accept:
 * text/html`, the caller's `authorization` and `Host`), so `res.render` and its data work as for the web. Only a 2xx `text/html`
 * answer of at most `maxBytes` is the app; anything else is a JSON-RPC internal error naming the route and status,
 * never the error page itself. A route that has not answered after {@link DEFAULT_ROUTE_TIMEOUT_MS} fails the read.
 */
export function routeSource(route: string, maxBytes: number, label: string, host: RequestDispatcher): HtmlSource {
  const failed = (why: string): JsonRpcError => readFailed(label, `the route GET ${route} ${why}`);
  return async (ctx) => {
    let bytes = 0;
    const tooLarge = new AbortController();
    const signal = AbortSignal.any([ctx.signal, AbortSignal.timeout(DEFAULT_ROUTE_TIMEOUT_MS), tooLarge.signal]);
    const answer = dispatchInProcess(host, {
      method: 'GET',
      url: route,
      headers: { accept: 'text/html' },
      // The caller's Host too: a page that builds absolute links names the server the client reached.
      forward: ['authorization', 'host'],
      // The in-process request ends with the read (too late, too large, cancelled): the route sees its req 'close'
      // and stops, rather than streaming or holding resources for a read nobody waits for.
      ctx: Object.create(ctx, { signal: { value: signal } }) as RequestContext,
      // Counts what the route writes and drops what passes maxBytes: a huge page never sits whole in memory.
      watch: (res) => {
        const { write, end } = res as unknown as Record<'write' | 'end', (...args: unknown[]) => unknown>;
        const fits = (chunk: unknown): boolean => {
          bytes +=
            typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk instanceof Uint8Array ? chunk.byteLength : 0;
          if (bytes <= maxBytes) return true;
          tooLarge.abort();
          return false;
        };
        Object.assign(res, {
          write: (chunk: unknown, ...rest: unknown[]) => (fits(chunk) ? write.call(res, chunk, ...rest) : true),
          end: (chunk?: unknown, ...rest: unknown[]) =>
            typeof chunk === 'function' || chunk === undefined || fits(chunk)
              ? end.call(res, chunk, ...rest)
              : end.call(res),
        });
      },
    });
    const larger = (): JsonRpcError => failed(`sent a page larger than maxBytes (${maxBytes} bytes)`);
    const response = await untilAborted(answer, signal, () =>
      bytes > maxBytes ? larger() : failed('did not answer in time'),
    );
    if (bytes > maxBytes) throw larger();
    const type = String(response.headers['content-type'] ?? '');
    if (response.status < 200 || response.status > 299) throw failed(`answered HTTP ${response.status}`);
    if (!/^text\/html\s*(;|$)/i.test(type))
      throw failed(`answered ${type === '' ? 'no Content-Type' : type}, not text/html`);
    return response.body.toString('utf8');
  };
}

function untilAborted<T>(work: Promise<T>, signal: AbortSignal, error: () => Error): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const abort = (): void => reject(error());
    if (signal.aborted) return abort();
    signal.addEventListener('abort', abort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort));
  });
}
