// 401/403 answers with an RFC 6750 `WWW-Authenticate: Bearer …` challenge naming the RFC 9728 metadata.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { ErrorCode } from '../jsonrpc/errors';
import { sendHttpError } from '../transport/http-error';
import type { AuthFailure } from './bearer';

/** Where the protected-resource metadata is, and which scopes to advertise in challenges. */
export interface ChallengeSettings {
  /** A fixed metadata URL, or undefined to derive it from the request. */
  readonly metadataUrl: string | undefined;
  /** The `scope` of challenges: the required scopes, else the supported ones; none when empty. */
  readonly scope: string;
}

/** What Express adds to a request that the challenge uses (the router always runs under Express). */
type ExpressRequest = IncomingMessage & { protocol?: string; baseUrl?: string };

/** `<scheme>://<host>/.well-known/oauth-protected-resource<mount path>` (RFC 9728 §3.1), as the client reached us. */
export function metadataUrlOf(req: ExpressRequest): string {
  return `${req.protocol ?? 'http'}://${req.headers.host ?? 'localhost'}/.well-known/oauth-protected-resource${req.baseUrl ?? ''}`;
}

const ANSWERS: Readonly<Record<AuthFailure, { status: number; error?: string; description: string; message: string }>> = {
  // RFC 6750 §3.1: a request without credentials gets a challenge without an error code.
  missing: { status: 401, description: '', message: 'Unauthorized: send Authorization: Bearer <token>' },
  invalid: { status: 401, error: 'invalid_token', description: 'The access token is not valid', message: 'Unauthorized: the access token is not valid' },
  expired: { status: 401, error: 'invalid_token', description: 'The access token expired', message: 'Unauthorized: the access token expired' },
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
  insufficient_scope: { status: 403, error: 'insufficient_scope', description: 'The access token lacks a required scope', message: 'Forbidden: the access token lacks a required scope' },
};

/**
 * Answers an authentication failure: 401 (or 400 for a token in the query string) with the challenge, or
 * 403 `insufficient_scope` (MCP authorization; RFC 6750 §3; RFC 9728 §5.1). The token is never echoed.
 */
export function sendAuthFailure(req: IncomingMessage, res: ServerResponse, failure: AuthFailure, settings: ChallengeSettings): void {
  const answer = ANSWERS[failure];
  const params = [`resource_metadata="${settings.metadataUrl ?? metadataUrlOf(req)}"`];
  if (settings.scope !== '') params.push(`scope="${settings.scope}"`);
  if (answer.error !== undefined) params.unshift(`error="${answer.error}"`, `error_description="${answer.description}"`);
  sendHttpError(res, answer.status, ErrorCode.ServerError, answer.message, { 'WWW-Authenticate': `Bearer ${params.join(', ')}` });
}
