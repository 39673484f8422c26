// With `--token`: whether the endpoint accepts that token for the opening request, without ever printing it.

import type { DoctorContext } from '../context';
import type { Finding } from '../finding';
import { headerOf } from '../http';
import { AUTH_DOCS } from './links';
import { probe, type ProbeEra } from './probes';

/** `text` with every occurrence of the token blanked, in case a server echoes it. */
function redacted(text: string, token: string): string {
  return token === '' ? text : text.split(token).join('<token>');
}

/** Sends the opening request of `era` with the target's token and judges the answer. */
export async function checkToken(ctx: DoctorContext, era: ProbeEra): Promise<Finding | undefined> {
  const token = ctx.target.token;
  if (token === undefined) return undefined;
  const id = 'auth.token';
  const result = await probe(ctx.http, ctx.target.url, era, token);
  const opening = era === '2025' ? '`initialize`' : '`server/discover`';
  if (result.kind === 'unreachable')
    return { id, severity: 'info', summary: `${opening} with the token got no answer (${result.reason})` };
  if (result.kind === 'served')
    return { id, severity: 'ok', summary: `the token is accepted: ${opening} answered ${result.reply.status}` };
  const header = redacted(headerOf(result.reply, 'www-authenticate') ?? '', token);
  const params = result.kind === 'challenged' ? result.challenge.params : {};
  const detail = header === '' ? undefined : `WWW-Authenticate: ${header}`;
  if (result.reply.status === 403 && params.error === 'insufficient_scope')
    return {
      id,
      severity: 'fail',
      summary: `the token lacks a scope: 403 insufficient_scope${params.scope ? `, the challenge asks for \`${params.scope}\`` : ''}`,
      ...(detail ? { detail } : {}),
      fix: 'Get a token with the scopes the challenge names (sign in again asking for them), or grant them to this principal.',
      docs: AUTH_DOCS.bearer,
    };
  if (result.reply.status === 401)
    return {
      id,
      severity: 'fail',
      summary: `the token is refused: 401${params.error ? ` ${params.error}` : ''}${params.error_description ? ` (${redacted(params.error_description, token)})` : ''}`,
      ...(detail ? { detail } : {}),
      fix: 'Check the token is current and was issued for this resource (its audience is the endpoint URL, RFC 8707), and that no proxy strips the `Authorization` header.',
      docs: AUTH_DOCS.bearer,
    };
  return {
    id,
    severity: 'info',
    summary: `${opening} with the token answered ${result.reply.status}`,
    ...(detail ? { detail } : {}),
  };
}
