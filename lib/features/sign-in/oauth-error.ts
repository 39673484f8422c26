// OAuth error answers (RFC 6749 §5.2, RFC 7591 §3.2.2, RFC 7009 §2.2.1): one JSON shape, never a stack, never HTML.

import type { ServerResponse } from 'node:http';
import { sendJson } from '../../edge/http/reply';

/** An OAuth error to answer with: the RFC's `error` code, a description, and the HTTP status. */
export class OAuthError extends Error {
  override readonly name = 'OAuthError';

  /**
   * @param error - the RFC's error code: `invalid_request`, `invalid_client`, `invalid_grant`, …
   * @param description - what was wrong, for the developer (`error_description`); never a secret
   * @param status - the HTTP status; 400 unless the RFC says otherwise (401 for `invalid_client`)
   * @param headers - headers the answer must carry (the `WWW-Authenticate` challenge of RFC 6749 §5.2)
   */
  constructor(
    readonly error: string,
    readonly description: string,
    readonly status = 400,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(description);
  }
}

/** Headers every token-endpoint-like answer carries (RFC 6749 §5.1: no caching of tokens or errors about them). */
export const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' } as const;

/**
 * Answers an OAuth error as JSON `{ error, error_description }`, not cacheable, with the error's own headers: every
 * OAuth error of the server is answered here, so a challenge an error carries is never dropped.
 *
 * @param headers - more headers for this answer (`Allow`, `Connection`)
 */
export function sendOAuthError(res: ServerResponse, err: OAuthError, headers?: Record<string, string>): void {
  sendJson(
    res,
    err.status,
    { error: err.error, error_description: err.description },
    { ...NO_STORE, ...err.headers, ...headers },
  );
}
