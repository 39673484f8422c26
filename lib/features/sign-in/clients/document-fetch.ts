// One GET of a Client ID Metadata Document: to an address already checked (pinned), no redirects, bounded in time and size.

import http from 'node:http';
import https from 'node:https';
import { isIPv6, type LookupFunction } from 'node:net';
import tls from 'node:tls';

/** A document as fetched: its text and its `Cache-Control`. */
export interface FetchedDocument {
  readonly text: string;
  readonly cacheControl: string | undefined;
}

/** Why a fetch gave no document (timeout, too large, a redirect, a status other than 200, a network error). */
export class DocumentFetchError extends Error {
  override readonly name = 'DocumentFetchError';
}

/** Bounds of one fetch. */
export interface FetchBounds {
  readonly timeoutMs: number;
  readonly maxBytes: number;
  /** Certificate authorities trusted beside the usual roots. */
  readonly ca: string | readonly string[];
}

/**
 * GETs `url`, connecting to `address` whatever DNS says by then: the address was resolved and checked before, and a
 * second resolution at connect time could answer differently (DNS rebinding). Node's global fetch cannot be told
 * which address to use, so this is node:http(s) with a `lookup` that answers the checked address. TLS still checks
 * the certificate against the URL's host name. Redirects are never followed (CIMD: the server MUST NOT follow them,
 * a redirect could lead anywhere); the body is counted as it comes and the connection dropped past `maxBytes`; the
 * whole exchange, body included, ends at `timeoutMs`.
 *
 * @throws {DocumentFetchError} for anything but a 200 with a body within bounds
 */
export function fetchPinned(url: URL, address: string, bounds: FetchBounds): Promise<FetchedDocument> {
  const family = isIPv6(address) ? 6 : 4;
  const lookup: LookupFunction = (_host, options, callback) => {
    // Node's connect asks for every address (`all`) when it may try several families (autoSelectFamily).
    if (options.all)
      (callback as (err: null, addresses: Array<{ address: string; family: number }>) => void)(null, [
        { address, family },
      ]);
    else callback(null, address, family);
  };
  const client = url.protocol === 'https:' ? https : http;
  return new Promise<FetchedDocument>((resolve, reject) => {
    const fail = (why: string): void => {
      clearTimeout(timer);
      request.destroy();
      reject(new DocumentFetchError(why));
    };
    const timer = setTimeout(() => fail(`no complete answer within ${bounds.timeoutMs} ms`), bounds.timeoutMs);
    // agent: false: a fresh connection, never a pooled one that was opened to another address.
    const extra = typeof bounds.ca === 'string' ? [bounds.ca] : bounds.ca;
    // `ca` replaces Node's roots: a private CA is trusted beside them, never instead.
    const trust = extra.length === 0 ? {} : { ca: [...tls.rootCertificates, ...extra] };
    const request = client.get(
      url,
      { lookup, agent: false, headers: { Accept: 'application/json' }, ...trust },
      (response) => {
        const status = response.statusCode ?? 0;
        if (status >= 300 && status < 400) return fail(`it answered a redirect (${status}), which is not followed`);
        if (status !== 200) return fail(`it answered HTTP ${status}`);
        if (Number(response.headers['content-length']) > bounds.maxBytes)
          return fail(`it is larger than ${bounds.maxBytes} bytes`);
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > bounds.maxBytes) return fail(`it is larger than ${bounds.maxBytes} bytes`);
          chunks.push(chunk);
          return undefined;
        });
        response.on('end', () => {
          clearTimeout(timer);
          const cacheControl = response.headers['cache-control'];
          resolve({ text: Buffer.concat(chunks, size).toString('utf8'), cacheControl });
        });
        response.on('error', () => fail('the answer was cut off'));
        return undefined;
      },
    );
    request.on('error', (err) =>
      fail(`it could not be fetched (${(err as NodeJS.ErrnoException).code ?? err.message})`),
    );
  });
}
