// 401/403 answers with an RFC 6750 `WWW-Authenticate: Bearer …` (or RFC 9449 `DPoP …`) challenge naming the RFC 9728 metadata.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { ErrorCode } from '../../core/jsonrpc/errors';
import { sendHttpError } from '../http/http-error';
import type { AuthFailure } from './bearer';
import type { DigestRefusal } from '../http/body-digest';
import { METADATA_PATH } from './resource-metadata';
import { publicUrlsOf } from './public-url';

/** Where the protected-resource metadata is, which scopes to advertise, and how a client gets a token. */
export interface ChallengeSettings {
  /** The metadata URL a challenge names for this request. */
  readonly metadataUrlOf: (req: IncomingMessage) => string;
  /** The `scope` of challenges: the required scopes, else the supported ones; none when empty. */
  readonly scope: string;
  /** True with static tokens: no authorization server issues them, so a 401 says to ask for one. */
  readonly preShared: boolean;
  /** DPoP (RFC 9449 §7.1): the algorithms challenges list, whether every challenge is a DPoP one, the current nonce. */
  readonly dpop?: { readonly algs: string; readonly required: boolean; readonly nonce: () => string | undefined };
}

/** `<origin>/.well-known/oauth-protected-resource<mount path>`: where RFC 9728 §3.1 puts it, at the app's root. */
export function rootMetadataUrl(req: IncomingMessage): string {
  const urls = publicUrlsOf(req);
  return `${urls.originOf(req)}${METADATA_PATH}${urls.endpointPathOf(req)}`;
}

/** `<origin><mount path>/.well-known/oauth-protected-resource`: where the MCP router itself serves it. */
export function mountMetadataUrl(req: IncomingMessage): string {
  return `${publicUrlsOf(req).endpointOf(req)}${METADATA_PATH}`;
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
    // RFC 9449 §7.1: DPoP failures are challenged with the DPoP scheme.
    dpop_proof: {
      status: 401,
      error: 'invalid_dpop_proof',
      description: 'The DPoP proof is not valid',
      message: 'Unauthorized: the DPoP proof is not valid',
    },
    dpop_nonce: {
      status: 401,
      error: 'use_dpop_nonce',
      description: 'Send a DPoP proof with the nonce of the DPoP-Nonce header',
      message: 'Unauthorized: send a DPoP proof with the nonce of the DPoP-Nonce header',
    },
    dpop_unbound: {
      status: 401,
      error: 'invalid_token',
      description: 'The DPoP scheme needs a DPoP-bound access token',
      message: 'Unauthorized: the access token is not DPoP-bound; send it as Bearer',
    },
    bound_as_bearer: {
      status: 401,
      error: 'invalid_token',
      description: 'The access token is DPoP-bound: send it as Authorization: DPoP with a DPoP proof',
      message: 'Unauthorized: the access token is DPoP-bound; send Authorization: DPoP <token> and a DPoP proof',
    },
    dpop_required: {
      status: 401,
      error: 'invalid_token',
      description: 'This resource takes DPoP-bound access tokens only',
      message: 'Unauthorized: this resource takes DPoP-bound access tokens only',
    },
    unchecked_binding: {
      status: 401,
      error: 'invalid_token',
      description: 'The access token is bound by a confirmation (cnf) this resource cannot check',
      message:
        'Unauthorized: the access token is bound by a confirmation (cnf) this resource cannot check; only cnf.jkt (DPoP) is',
    },
  };

/** The failures answered with a `DPoP` challenge whatever the router's settings. */
const DPOP_FAILURES: ReadonlySet<AuthFailure> = new Set<AuthFailure>([
  'dpop_proof',
  'dpop_nonce',
  'dpop_unbound',
  'bound_as_bearer',
  'dpop_required',
]);

/** What an authentication failure is answered with (see {@link sendAuthFailure}). */
export function authFailureAnswer(
  req: IncomingMessage,
  failure: AuthFailure,
  settings: ChallengeSettings,
  detail?: string,
): DigestRefusal & { readonly headers: Record<string, string> } {
  const answer = ANSWERS[failure];
  const params = [`resource_metadata="${settings.metadataUrlOf(req)}"`];
  if (settings.scope !== '') params.push(`scope="${settings.scope}"`);
  const dpop = settings.dpop !== undefined && (settings.dpop.required || DPOP_FAILURES.has(failure));
  if (dpop) params.unshift(`algs="${settings.dpop?.algs}"`);
  if (answer.error !== undefined)
    params.unshift(`error="${answer.error}"`, `error_description="${detail ?? answer.description}"`);
  let message = detail === undefined ? answer.message : `${answer.message}: ${detail}`;
  if (settings.preShared && answer.status === 401)
    message = failure === 'missing' ? `Unauthorized: ${PRE_SHARED}` : `${message}; ${PRE_SHARED}`;
  const headers: Record<string, string> = { 'WWW-Authenticate': `${dpop ? 'DPoP' : 'Bearer'} ${params.join(', ')}` };
  const nonce = failure === 'dpop_nonce' ? settings.dpop?.nonce() : undefined;
  if (nonce !== undefined) headers['DPoP-Nonce'] = nonce;
  return { status: answer.status, code: ErrorCode.ServerError, message, headers };
}

/**
 * Answers an authentication failure: 401 (or 400 for a token in the query string) with the challenge, or
 * 403 `insufficient_scope` (MCP authorization; RFC 6750 §3; RFC 9728 §5.1). The token is never echoed. A DPoP
 * failure, or any failure where DPoP is required, is challenged with the `DPoP` scheme and its `algs` (RFC 9449
 * §7.1); `use_dpop_nonce` carries the nonce to retry with in `DPoP-Nonce` (§9).
 *
 * @param detail - why a DPoP proof was refused (the `error_description`); never a secret
 */
export function sendAuthFailure(
  req: IncomingMessage,
  res: ServerResponse,
  failure: AuthFailure,
  settings: ChallengeSettings,
  detail?: string,
): void {
  const { status, code, message, headers } = authFailureAnswer(req, failure, settings, detail);
  sendHttpError(res, status, code, message, headers);
}
