// 401/403 answers with an RFC 6750 `WWW-Authenticate: Bearer …` challenge naming the RFC 9728 metadata.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { ErrorCode } from '../../core/jsonrpc/errors';
import { sendHttpError } from '../http/http-error';
import type { AuthFailure } from './bearer';
import { METADATA_PATH, originOf, type ExpressRequest } from './resource-metadata';

/** Where the protected-resource metadata is, which scopes to advertise, and how a client gets a token. */
export interface ChallengeSettings {
  /** The metadata URL a challenge names for this request. */
  readonly metadataUrlOf: (req: IncomingMessage) => string;
  /** The `scope` of challenges: the required scopes, else the supported ones; none when empty. */
  readonly scope: string;
  /** True with static tokens: no authorization server issues them, so a 401 says to ask for one. */
  readonly preShared: boolean;
}

/** `<origin>/.well-known/oauth-protected-resource<mount path>`: where RFC 9728 §3.1 puts it, at the app's root. */
export function rootMetadataUrl(req: ExpressRequest): string {
  return `${originOf(req)}${METADATA_PATH}${req.baseUrl ?? ''}`;
}

/** `<origin><mount path>/.well-known/oauth-protected-resource`: where the MCP router itself serves it. */
export function mountMetadataUrl(req: ExpressRequest): string {
  return `${originOf(req)}${req.baseUrl ?? ''}${METADATA_PATH}`;
}

/** The 401 message with static tokens: no OAuth flow can get one, so the client's user learns whom to ask. */
const PRE_SHARED =
  'this server takes a pre-shared bearer token (no OAuth sign-in): get one from its operator and send Authorization: Bearer <token>';

const ANSWERS: Readonly<Record<AuthFailure, { status: number; error?: string; description: string; message: string }>> =
  {
    // RFC 6750 §3.1: a request without credentials gets a challenge without an error code.
    missing: { status: 401, description: '', message: 'Unauthorized: send Authorization: Bearer <token>' },
    invalid: {
      status: 401,
      error: 'invalid_token',
      description: 'The access token is not valid',
      message: 'Unauthorized: the access token is not valid',
    },
    expired: {
      status: 401,
      error: 'invalid_token',
      description: 'The access token expired',
      message: 'Unauthorized: the access token expired',
    },
    token_in_query: {
      status: 400,
      error: 'invalid_request',
      description: 'Send the access token in the Authorization header, not the query string',
      message: 'Bad Request: send the access token in the Authorization header, not the query string',
    },
    repeated_header: {
      status: 400,
      error: 'invalid_request',
      description: 'Send one Authorization header',
      message: 'Bad Request: send one Authorization header, not several',
    },
    insufficient_scope: {
      status: 403,
      error: 'insufficient_scope',
      description: 'The access token lacks a required scope',
      message: 'Forbidden: the access token lacks a required scope',
    },
  };

/**
 * Answers an authentication failure: 401 (or 400 for a token in the query string) with the challenge, or
 * 403 `insufficient_scope` (MCP authorization; RFC 6750 §3; RFC 9728 §5.1). The token is never echoed.
 */
export function sendAuthFailure(
  req: IncomingMessage,
  res: ServerResponse,
  failure: AuthFailure,
  settings: ChallengeSettings,
): void {
  const answer = ANSWERS[failure];
  const params = [`resource_metadata="${settings.metadataUrlOf(req)}"`];
  if (settings.scope !== '') params.push(`scope="${settings.scope}"`);
  if (answer.error !== undefined)
    params.unshift(`error="${answer.error}"`, `error_description="${answer.description}"`);
  let message = answer.message;
  if (settings.preShared && answer.status === 401)
    message = failure === 'missing' ? `Unauthorized: ${PRE_SHARED}` : `${message}; ${PRE_SHARED}`;
  sendHttpError(res, answer.status, ErrorCode.ServerError, message, {
    'WWW-Authenticate': `Bearer ${params.join(', ')}`,
  });
}
