// The two requests that open a connection, one per era, sent with or without a token, and what their answer says about auth.

import { METHOD_HEADER, PROTOCOL_VERSION_HEADER } from '../../core/protocol/era-2026/request-headers';
import { headerOf, type HttpReply, type HttpRequest, type HttpSettings } from '../http';
import { ACCEPT_BOTH, bearerHeaders, endSession, envelope2026, INITIALIZE_PARAMS, VERSION_2026 } from '../mcp';
import { follow } from './documents';
import { oauthChallengeOf, parseChallenges, type Challenge } from './www-authenticate';

/** The era a probe opens with: `initialize` (2025) or `server/discover` (2026). */
export type ProbeEra = '2025' | '2026';

/** The POST a client opens with in `era`, carrying `token` when given (never logged, never printed). */
export function openingRequest(url: URL, era: ProbeEra, token?: string): HttpRequest {
  const base = {
    'content-type': 'application/json',
    accept: ACCEPT_BOTH,
    ...bearerHeaders(token),
  };
  if (era === '2025')
    return {
      method: 'POST',
      url,
      headers: base,
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: INITIALIZE_PARAMS }),
    };
  return {
    method: 'POST',
    url,
    headers: { ...base, [PROTOCOL_VERSION_HEADER]: VERSION_2026, [METHOD_HEADER]: 'server/discover' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: envelope2026() } }),
  };
}

/** What an opening request's answer says about auth. */
export type ProbeResult =
  | { readonly kind: 'unreachable'; readonly reason: string }
  /** 401 or 403 with a Bearer or DPoP challenge. */
  | { readonly kind: 'challenged'; readonly reply: HttpReply; readonly challenge: Challenge; readonly all: Challenge[] }
  /** 401 (or 403) with no challenge a client can answer. */
  | { readonly kind: 'bare'; readonly reply: HttpReply; readonly header?: string }
  /** 2xx: served. */
  | { readonly kind: 'served'; readonly reply: HttpReply }
  /** Anything else: a redirect elsewhere, a 4xx before auth, a 5xx. */
  | { readonly kind: 'other'; readonly reply: HttpReply; readonly elsewhere?: string };

/** Sends the opening request of `era` (same-origin redirects followed) and reads its answer. */
export async function probe(settings: HttpSettings, url: URL, era: ProbeEra, token?: string): Promise<ProbeResult> {
  const { reply, elsewhere, failure } = await follow(settings, openingRequest(url, era, token));
  if (reply === undefined) return { kind: 'unreachable', reason: failure ?? 'no answer' };
  if (elsewhere !== undefined) return { kind: 'other', reply, elsewhere };
  if (reply.status >= 200 && reply.status < 300) {
    // MCP 2025-11-25 transports › Session Management: a session the probe opened is closed again, best effort.
    await endSession(
      { target: { url, calls: [], ...(token === undefined ? {} : { token }) }, http: settings },
      headerOf(reply, 'mcp-session-id'),
    );
    return { kind: 'served', reply };
  }
  if (reply.status !== 401 && reply.status !== 403) return { kind: 'other', reply };
  const header = headerOf(reply, 'www-authenticate');
  // Node joins repeated `WWW-Authenticate` lines with ", ", which is how one line lists several challenges.
  const all = header === undefined ? [] : parseChallenges(header);
  const challenge = oauthChallengeOf(all);
  if (challenge !== undefined) return { kind: 'challenged', reply, challenge, all };
  if (reply.status === 403 && header === undefined) return { kind: 'other', reply };
  return { kind: 'bare', reply, ...(header === undefined ? {} : { header }) };
}
