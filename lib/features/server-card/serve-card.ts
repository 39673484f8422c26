// The Server Card at `<mount path>/server-card` (draft SEP-2127): public, cached by its ETag, one document per public URL.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Era } from '../../core/versions';
import { VERSIONS_BY_ERA } from '../../core/versions';
import { memoizeBounded } from '../../edge/http/bounded-memo';
import { noneMatchHits, strongEntityTag } from '../../edge/http/entity-tag';
import { rejectHostOfDocument } from '../../edge/http/host-header';
import { createMethodNotAllowedHandler } from '../../edge/http/not-allowed';
import { allowAnyOrigin, publicCorsHeaders } from '../../edge/http/public-cors';
import { originOf, type ExpressRequest } from '../../edge/security/resource-metadata';
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

/**
 * Creates the handler of the card. It names the endpoint at the URL the client reached (the origin and mount path,
 * as the protected-resource metadata does), so the card is made once per such URL and kept, bounded.
 *
 * @param identity - the checked identity (`resolveServerCard`)
 * @param eras - the eras the endpoint serves: their revisions are the remote's `supportedProtocolVersions`
 * @param isAllowedHost - the `allowedHosts` decision: the card names the Host's origin, as the metadata does
 * @example
 * ```ts
 * host.publicDocument(SERVER_CARD_PATH, createServerCardHandler(identity, host.eras, host.isAllowedHost));
 * ```
 */
export function createServerCardHandler(
  identity: CardIdentity,
  eras: readonly Era[],
  isAllowedHost: (req: IncomingMessage) => boolean,
) {
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
    const { body, etag } = cardAt(endpointUrlOf(req));
    // RFC 9110 §15.4.5: a 304 carries the ETag and Cache-Control a 200 would have.
    const headers = { ETag: etag, 'Cache-Control': CACHE_CONTROL };
    if (noneMatchHits(req, etag)) {
      res.writeHead(304, headers).end();
      return;
    }
    res.writeHead(200, { ...headers, 'Content-Type': SERVER_CARD_MEDIA_TYPE, 'Content-Length': body.length });
    res.end(req.method === 'HEAD' ? undefined : body);
  };
}

/** The endpoint's public URL: the origin the client reached and the mount path, as the protected-resource metadata names it. */
function endpointUrlOf(req: ExpressRequest): string {
  const path = req.baseUrl ?? '';
  return `${originOf(req)}${path === '/' ? '' : path}`;
}
