// The body digest a request's DPoP proof names (MCP profile `content_digest`): recorded by authentication, checked by the body reader on the bytes it read.

import * as crypto from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** How a body whose digest does not match is refused: authentication's 401 with its challenge. */
export interface DigestRefusal {
  readonly status: number;
  readonly code: number;
  readonly message: string;
  readonly headers?: Record<string, string>;
}

interface Expected {
  readonly digest: string;
  readonly refusal: () => DigestRefusal;
}

// Under a property no one else can name, as authentication keeps its outcome.
const EXPECTED = Symbol('mcpRouter.bodyDigest');

/** RFC 9530 (as the MCP profile writes it): `sha-256=:<base64 SHA-256 of the bytes>:`. */
export function contentDigestOf(bytes: Uint8Array): string {
  return `sha-256=:${crypto.createHash('sha256').update(bytes).digest('base64')}:`;
}

/**
 * Records that the body of `req` must have `digest` (`sha-256=:<base64>:`, RFC 9530): the body is read after
 * authentication, so the check waits for the bytes.
 *
 * @param refusal - the answer to a mismatch, made only when one happens
 */
export function expectBodyDigest(req: IncomingMessage, digest: string, refusal: () => DigestRefusal): void {
  (req as unknown as Record<symbol, Expected>)[EXPECTED] = { digest, refusal };
}

/**
 * The refusal of a body that does not match the digest its proof named, or undefined. `bytes` undefined: the host
 * app parsed the body before the router (`express.json()`), so the exact bytes are gone and nothing can be checked:
 * a proof that names a digest is then refused too, never taken unchecked.
 */
export function bodyDigestRefusal(req: IncomingMessage, bytes: Uint8Array | undefined): DigestRefusal | undefined {
  const expected = (req as unknown as Record<symbol, Expected | undefined>)[EXPECTED];
  if (expected === undefined) return undefined;
  if (bytes === undefined) return expected.refusal();
  const computed = Buffer.from(contentDigestOf(bytes));
  const given = Buffer.from(expected.digest);
  return computed.length === given.length && crypto.timingSafeEqual(computed, given) ? undefined : expected.refusal();
}
