// What every benchmark server and its clients agree on: the `add` and `count` tools, server info, the production credentials.

import { createECDH, createHash } from 'node:crypto';

/** The JSON Schema of `add`'s arguments (the SDK server states the same with zod). */
export const ADD_INPUT_SCHEMA = {
  type: 'object',
  properties: { a: { type: 'number' }, b: { type: 'number' } },
  required: ['a', 'b'],
} as const;

/** `add`'s result everywhere: one text block, as the SDK's own examples return. */
export function addResult(a: number, b: number): { content: Array<{ type: 'text'; text: string }> } {
  return { content: [{ type: 'text', text: String(a + b) }] };
}

/** How many progress notifications `count` sends before its result (scenario 2). */
export const PROGRESS_STEPS = 100;

/** `count`'s result, after its progress notifications. */
export const COUNT_RESULT = { content: [{ type: 'text' as const, text: `counted to ${PROGRESS_STEPS}` }] };

/** The server info every benchmark server reports from `initialize`. */
export const SERVER_INFO = { name: 'bench', version: '1.0.0' } as const;

/** The bearer token that server (f) requires and its clients send. */
export const PRODUCTION_TOKEN = 'bench-token-0123456789abcdef';

/** The browser origin that server (f) allows and its clients send, so CORS and the Origin check both run. */
export const PRODUCTION_ORIGIN = 'https://app.example.com';

/** The MCP revision of the modern scenarios (1m, 2m), served statelessly: no initialize, no session. */
export const MODERN_PROTOCOL_VERSION = '2026-07-28';

/** The `_meta` key that marks a request as 2026-07-28. */
export const MODERN_VERSION_META_KEY = 'io.modelcontextprotocol/protocolVersion';

/** The `_meta` keys a 2026-07-28 request carries instead of a session's negotiated state. */
export const MODERN_REQUEST_META = {
  [MODERN_VERSION_META_KEY]: MODERN_PROTOCOL_VERSION,
  'io.modelcontextprotocol/clientCapabilities': {},
} as const;

/**
 * A hand-written result as the request's revision asks for it: a 2026-07-28 request (its version in `params._meta`)
 * gets `resultType` and the server's info in `_meta`, as the router and the SDK v2 write them (servers (a) and (p)).
 */
export function shapedFor(params: Record<string, any> | undefined, result: object): object {
  if (params?._meta?.[MODERN_VERSION_META_KEY] === undefined) return result;
  return { ...result, resultType: 'complete', _meta: { 'io.modelcontextprotocol/serverInfo': SERVER_INFO } };
}

/**
 * The DPoP key of server (fd)'s clients (RFC 9449): a P-256 key derived from a fixed label, so the server (which binds
 * its token to the key's thumbprint) and the load child (which signs the proofs) agree without passing key material.
 * A bench fixture, never a credential.
 */
export function benchDpopKey(): {
  privateJwk: Record<string, string>;
  publicJwk: Record<string, string>;
  jkt: string;
} {
  const d = createHash('sha256').update('express-mcp-router bench DPoP key').digest();
  const ecdh = createECDH('prime256v1');
  ecdh.setPrivateKey(d);
  const point = ecdh.getPublicKey();
  const publicJwk = {
    kty: 'EC',
    crv: 'P-256',
    x: point.subarray(1, 33).toString('base64url'),
    y: point.subarray(33, 65).toString('base64url'),
  };
  // RFC 7638 §3.2: the required members in lexicographic order, no whitespace.
  const canonical = JSON.stringify({ crv: publicJwk.crv, kty: publicJwk.kty, x: publicJwk.x, y: publicJwk.y });
  return {
    privateJwk: { ...publicJwk, d: d.toString('base64url') },
    publicJwk,
    jkt: createHash('sha256').update(canonical).digest('base64url'),
  };
}
