// The card area: the draft MCP Server Card at `<endpoint>/server-card`, when there is one: JSON, and its remotes name the URL used.

import type { Check } from './context';
import type { Finding } from './finding';
import { headerOf, send } from './http';
import { baseHeaders, excerpt, isRecord } from './mcp';

/** Where a Server Card is, under the endpoint (draft SEP-2127: `<streamable-http-url>/server-card`). */
export const CARD_SUFFIX = '/server-card';

/** The card's media type (draft SEP-2127). */
export const CARD_MEDIA_TYPE = 'application/mcp-server-card+json';

const DOCS = 'doctor.md#card';

/** The URL of the card of an endpoint. */
export function cardUrlOf(endpoint: URL): URL {
  const url = new URL(endpoint.href);
  url.pathname = url.pathname.replace(/\/$/, '') + CARD_SUFFIX;
  url.search = '';
  return url;
}

const sameEndpoint = (a: string, b: URL): boolean => {
  try {
    const url = new URL(a);
    return url.origin === b.origin && url.pathname.replace(/\/$/, '') === b.pathname.replace(/\/$/, '');
  } catch {
    return false;
  }
};

function cardFindings(body: string, type: string, endpoint: URL): Finding[] {
  let card: unknown;
  try {
    card = JSON.parse(body);
  } catch {
    return [
      {
        id: 'card.json',
        severity: 'fail',
        summary: 'the server card is not JSON',
        detail: excerpt(body),
        fix: `Serve the card as a JSON document (${CARD_MEDIA_TYPE}).`,
        docs: DOCS,
      },
    ];
  }
  const findings: Finding[] = [];
  if (!type.includes(CARD_MEDIA_TYPE))
    findings.push({
      id: 'card.media-type',
      severity: 'warn',
      summary: `the card is served as ${type || '(no Content-Type)'}, not ${CARD_MEDIA_TYPE}`,
      docs: DOCS,
    });
  const remotes = isRecord(card) && Array.isArray(card.remotes) ? card.remotes.filter(isRecord) : [];
  const urls = remotes.map((r) => String(r.url));
  if (urls.some((u) => sameEndpoint(u, endpoint)))
    findings.push({
      id: 'card.remotes',
      severity: 'ok',
      summary: 'the server card names this endpoint in its remotes',
    });
  else
    findings.push({
      id: 'card.remotes',
      severity: 'warn',
      summary: `the card's remotes name ${urls.join(', ') || 'no URL'}, not ${endpoint.href}`,
      fix: remotesFix(urls, endpoint),
      docs: 'deployment.md#behind-a-tls-proxy',
    });
  return findings;
}

/** Clients that find the server by its card connect to the URL it names: the fix for the likely cause of another one. */
function remotesFix(urls: readonly string[], endpoint: URL): string {
  const plain = endpoint.protocol === 'https:' && urls.some((u) => u.startsWith('http:'));
  const lead = plain
    ? "The card names plain http: the app behind a TLS-terminating proxy does not know clients use https. Set `app.set('trust proxy', 1)`, or the router's `publicUrl` to the public endpoint URL."
    : "Set the router's `publicUrl` to the public endpoint URL: the card names it. Without it, the card is built from the host each request names: behind a proxy, `app.set('trust proxy', 1)` so the forwarded host and scheme count.";
  return `${lead} Another server: name the public URL in the card's remotes.`;
}

/**
 * The card area: reads `<endpoint>/server-card` (draft SEP-2127). No card is `info`: it is an experimental extension.
 *
 * @example
 * ```ts
 * const findings = await checkCard(ctx);
 * ```
 */
export const checkCard: Check = async (ctx) => {
  const url = cardUrlOf(ctx.target.url);
  const reply = await send(ctx.http, {
    method: 'GET',
    url,
    headers: { accept: `${CARD_MEDIA_TYPE}, application/json`, ...baseHeaders(ctx) },
  });
  if (reply.status !== 200)
    return [{ id: 'card.absent', severity: 'info', summary: `no server card at ${url.pathname} (${reply.status})` }];
  if (reply.truncated)
    return [
      {
        id: 'card.json',
        severity: 'fail',
        summary: `the server card is larger than the doctor reads (${ctx.http.maxBytes} bytes)`,
        fix: 'Serve a card of a few KB: the name, the remotes and a short description.',
        docs: DOCS,
      },
    ];
  return cardFindings(reply.body, headerOf(reply, 'content-type') ?? '', ctx.target.url);
};
