// A per-address rate limit of the sign-in endpoints, answered as the OAuth JSON error (429 with Retry-After).

import type { RequestHandler } from 'express';
import { ipKeyGenerator, rateLimit } from 'express-rate-limit';
import { OAuthError, sendOAuthError } from './oauth-error';

/**
 * At most `perMinute` requests a minute from one client address (IPv6 grouped by /56, so a client cannot rotate
 * through its own addresses), counted in this process (express-rate-limit's memory store). Behind a proxy, set
 * Express's `trust proxy` so `req.ip` is the client's address.
 *
 * @param what - what is limited, for the error: `'registrations'`, `'sign-in requests'`
 * @example
 * ```ts
 * const limit = perAddressLimit(10, 'registrations');
 * limit(req, res, () => register(req, res));
 * ```
 */
export function perAddressLimit(perMinute: number, what: string): RequestHandler {
  return rateLimit({
    windowMs: 60_000,
    limit: perMinute,
    standardHeaders: 'draft-8',
    legacyHeaders: false,
    // CORS preflights carry no credentials and do no work: they do not count.
    skip: (req) => req.method === 'OPTIONS',
    keyGenerator: (req) => ipKeyGenerator(req.ip ?? req.socket.remoteAddress ?? ''),
    handler: (_req, res) =>
      sendOAuthError(
        res,
        new OAuthError(
          'too_many_requests',
          `at most ${perMinute} ${what} a minute from one address; retry after the time in Retry-After`,
          429,
        ),
      ),
  });
}
