// What both token verifiers share: the audience a token must name (RFC 8707: this resource's URL) and the scope claims.

import type { IncomingMessage } from 'node:http';
import { publicUrlsOf } from '../../edge/security/public-url';

/**
 * The audience a token must name: the configured one, else the public URL of the MCP endpoint the request reached
 * (the router's `publicUrl`, or `<protocol>://<host><mount path>`) — the resource the client asked a token for
 * (RFC 8707 §2, MCP authorization "Token Audience Binding"), as the router's protected-resource metadata names it.
 */
export function audienceFor(configured: string | undefined, req: IncomingMessage): string {
  return configured ?? publicUrlsOf(req).endpointOf(req);
}

/** True when the `aud` claim (a string or an array of them, RFC 7519 §4.1.3) names `audience`. */
export function namesAudience(aud: unknown, audience: string): boolean {
  return aud === audience || (Array.isArray(aud) && aud.includes(audience));
}

/** Scopes from a claim: a space-separated string (`scope`, RFC 8693 §4.2) or an array of strings (`scp`). */
export function scopesOf(claim: unknown): string[] {
  if (typeof claim === 'string') return claim.split(' ').filter((scope) => scope !== '');
  if (Array.isArray(claim)) return claim.filter((scope): scope is string => typeof scope === 'string' && scope !== '');
  return [];
}
