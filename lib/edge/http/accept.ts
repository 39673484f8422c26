// Accept negotiation: which reply (JSON, SSE, or JSON upgraded to SSE on demand) a POST gets, leniently.

import { memoizeBounded } from './bounded-memo';

/** How the router replies to requests: `auto` answers JSON unless the handler emits something while it runs. */
export type ResponseMode = 'auto' | 'sse' | 'json';

interface Accepts {
  readonly json: boolean;
  readonly sse: boolean;
}

/** Which of the two MCP types an Accept header allows (`*\/*`, `application/*`, `text/*` count; q=0 does not). */
export function parseAccept(header: string | undefined): Accepts {
  if (header === undefined || header.trim() === '') return { json: true, sse: true };
  let json = false;
  let sse = false;
  for (const part of header.split(',')) {
    const [range = '', ...params] = part.trim().toLowerCase().split(';');
    if (params.some((param) => /^\s*q\s*=\s*0(\.0*)?\s*$/.test(param))) continue;
    const type = range.trim();
    if (type === '*/*') json = sse = true;
    else if (type === 'application/json' || type === 'application/*') json = true;
    else if (type === 'text/event-stream' || type === 'text/*') sse = true;
  }
  return { json, sse };
}

/** How many distinct Accept headers a negotiator remembers before it starts afresh. */
export const REMEMBERED_ACCEPT_HEADERS = 64;

/**
 * Negotiates the reply a POST of requests gets, for one router. A client that accepts only one of the two
 * types gets that type whatever the mode (real clients send odd Accept headers); undefined when it accepts
 * neither (406). Parsed headers are remembered: a client sends the same one on every request, and parsing it
 * anew (split, lower-case, a regex per part) would repeat that work on each of them.
 */
export function createReplyNegotiator(): (header: string | undefined, mode: ResponseMode) => ResponseMode | undefined {
  const acceptsOf = memoizeBounded(parseAccept, REMEMBERED_ACCEPT_HEADERS);
  return (header = '', mode) => replyFor(acceptsOf(header), mode);
}

function replyFor(accepts: Accepts, mode: ResponseMode): ResponseMode | undefined {
  if (accepts.json && accepts.sse) return mode;
  if (accepts.sse) return 'sse';
  if (accepts.json) return 'json';
  return undefined;
}
