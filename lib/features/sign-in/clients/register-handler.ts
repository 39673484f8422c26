// The Express adapter of POST <issuer>/oauth/register: CORS, a per-IP rate limit, a bounded JSON body, then the directory.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { allowAnyOrigin } from '../../../edge/http/public-cors';
import type { RequestHandler } from 'express';
import { readJsonBody } from '../../../edge/http/body';
import { sendJson } from '../../../edge/http/reply';
import type { McpLogger } from '../../../core/logger';
import type { ClientDirectory } from './clients';
import type { ResolvedClients } from './client-options';
import { perAddressLimit } from '../address-limit';
import { NO_STORE, OAuthError, sendOAuthError } from '../oauth-error';

/** The JSON error of a failed body read: RFC 7591 §3.2.2's `invalid_client_metadata`, or `invalid_request` for a wrong media type. */
function bodyError(status: number, message: string): OAuthError {
  if (status === 415) return new OAuthError('invalid_request', message, 415);
  if (status >= 500) return new OAuthError('server_error', message, status);
  return new OAuthError('invalid_client_metadata', message, status);
}

/**
 * The handler of POST `<issuer>/oauth/register` (RFC 7591 §3). Browser clients may register from any origin (CORS
 * `*`, no credentials: registration needs none); each IP may register `perMinute` times a minute (429 with the JSON
 * error beyond; express-rate-limit's in-memory store, per instance); the body must be `application/json` within
 * `maxMetadataBytes` (413 beyond). Success is 201 with the client's information and `Cache-Control: no-store` (the
 * body may hold a secret). With registration off it answers 404 with a JSON error. Behind a proxy, set Express's
 * `trust proxy` so `req.ip` is the client's address.
 *
 * @param directory - the server's client directory
 * @param options - the resolved client options (registration limits)
 * @param logger - where a failure that is not the client's (the store down) is reported; defaults to `console`
 * @example
 * ```ts
 * router.all('/oauth/register', createRegistrationHandler(directory, resolvedClients));
 * ```
 */
export function createRegistrationHandler(
  directory: ClientDirectory,
  options: ResolvedClients,
  logger: McpLogger = console,
): RequestHandler {
  const { registration } = options;
  if (registration === false) {
    return function registrationOff(_req, res) {
      sendOAuthError(
        res,
        new OAuthError('invalid_request', 'dynamic client registration is not enabled on this server', 404),
      );
    };
  }
  const limiter = perAddressLimit(registration.perMinute, 'registrations');

  const register = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const body = await readJsonBody(req, registration.maxMetadataBytes);
    if (!body.ok) {
      sendOAuthError(
        res,
        bodyError(body.status, body.message),
        body.status === 413 ? { Connection: 'close' } : undefined,
      );
      return;
    }
    try {
      sendJson(res, 201, await directory.register(body.value), { ...NO_STORE });
    } catch (err) {
      if (err instanceof OAuthError) return sendOAuthError(res, err);
      logger.error(err, 'mcpRouter: client registration failed');
      sendOAuthError(res, new OAuthError('server_error', 'the registration could not be kept; try again later', 500));
    }
  };

  return function registrationHandler(req, res, next) {
    if (allowAnyOrigin(req, res, ['POST'])) return;
    if (req.method !== 'POST')
      return sendOAuthError(res, new OAuthError('invalid_request', 'register with POST', 405), {
        Allow: 'POST, OPTIONS',
      });
    limiter(req, res, (limitError?: unknown) => {
      if (limitError) return next(limitError);
      register(req, res).catch(next);
    });
  };
}
