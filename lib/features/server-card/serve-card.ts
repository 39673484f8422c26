// The Server Card at `<mount path>/server-card` (draft SEP-2127): public, cached by its ETag, one document per public URL.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Era } from '../../core/versions';
import { VERSIONS_BY_ERA } from '../../core/versions';
import { memoizeBounded } from '../../edge/http/bounded-memo';
import { noneMatchHits, strongEntityTag } from '../../edge/http/entity-tag';
import { rejectHostOfDocument } from '../../edge/http/host-header';
import { createMethodNotAllowedHandler } from '../../edge/http/not-allowed';
import { allowAnyOrigin, publicCorsHeaders } from '../../edge/http/public-cors';
import type { ExpressRequest, PublicUrls } from '../../edge/security/public-url';
import type { CardIdentity } from './card-options';

/** Where the card is served, under the router's mount path (draft SEP-2127: `<streamable-http-url>/server-card`). */
export const SERVER_CARD_PATH = '/server-card';
/** The card's media type (draft SEP-2127 discovery). */
export const SERVER_CARD_MEDIA_TYPE = 'application/mcp-server-card+json';
/** The schema every card names (draft SEP-2127: the `v1` Server Card schema URL). */
export const SERVER_CARD_SCHEMA = 'https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json';

/** Draft SEP-2127 caching: hosts SHOULD send this (an hour), and an ETag to revalidate with. */
const CACHE_CONTROL = 'public, max-age=3600';
/** Draft SEP-2127 CORS: a browser client may send If-None-Match and read the ETag. */
const CORS_HEADERS = publicCorsHeaders(['ETag'], ['If-None-Match']);
/** Distinct public URLs whose card is kept: a router answers at one or a few names. */
const MAX_CARDS = 16;

/** One card as sent: its bytes and their strong tag. */
interface CardBytes {
  readonly body: Buffer;
  readonly etag: string;
}

/** What the card handler takes from the router. */
export interface ServerCardHost {
  /** The eras the endpoint serves: their revisions are the remote's `supportedProtocolVersions`. */
  readonly eras: readonly Era[];
  /** The `allowedHosts` decision: the card names the Host's origin, as the metadata does. */
  isAllowedHost(req: IncomingMessage): boolean;
  /** The router's public URLs: the remote is the endpoint's, as the protected-resource metadata names it. */
  readonly publicUrls: PublicUrls;
}

/**
 * Creates the handler of the card. It names the endpoint's public URL (`publicUrl`, else the origin the client
 * reached and the mount path), so the card is made once per such URL and kept, bounded: once in all with `publicUrl`.
 *
 * @param identity - the checked identity (`resolveServerCard`)
 * @example
 * ```ts
 * host.publicDocument(SERVER_CARD_PATH, createServerCardHandler(identity, host));
 * ```
 */
export function createServerCardHandler(identity: CardIdentity, host: ServerCardHost) {
  const { eras, isAllowedHost, publicUrls } = host;
  const supportedProtocolVersions = eras.flatMap((era) => VERSIONS_BY_ERA[era]);
  const cardAt = memoizeBounded((url: string): CardBytes => {
    const card = {
      $schema: SERVER_CARD_SCHEMA,
      ...identity,
      remotes: [{ type: 'streamable-http', url, supportedProtocolVersions }],
    };
    const body = Buffer.from(JSON.stringify(card));
    return { body, etag: strongEntityTag(body) };
  }, MAX_CARDS);
  const notAllowed = createMethodNotAllowedHandler(['GET', 'HEAD', 'OPTIONS']);
  return function mcpServerCard(req: ExpressRequest, res: ServerResponse): void {
    // Public, and built from the Host: a rebound name must not get a card sending clients to it (as the metadata).
    if (rejectHostOfDocument(isAllowedHost, req, res)) return;
    if (allowAnyOrigin(req, res, ['GET', 'HEAD'], CORS_HEADERS)) return;
    if (req.method !== 'GET' && req.method !== 'HEAD') return notAllowed(req, res);
    const { body, etag } = cardAt(publicUrls.endpointOf(req));
    // RFC 9110 §15.4.5: a 304 carries the ETag and Cache-Control a 200 would have.
    const headers = { ETag: etag, 'Cache-Control': CACHE_CONTROL, ...publicUrls.documentHeaders(req) };
    if (noneMatchHits(req, etag)) {
      res.writeHead(304, headers).end();
      return;
    }
    res.writeHead(200, { ...headers, 'Content-Type': SERVER_CARD_MEDIA_TYPE, 'Content-Length': body.length });
    res.end(req.method === 'HEAD' ? undefined : body);
  };
}
