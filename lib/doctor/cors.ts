// The cors area: what a browser page on `--origin` meets: the preflight, the POST's CORS headers, and the headers it may read.

import type { Check, DoctorContext } from './context';
import type { Finding } from './finding';
import { headerOf, send, type HttpReply } from './http';
import { ACCEPT_BOTH, baseHeaders, endSession, excerpt, INITIALIZE_PARAMS } from './mcp';

/** The request headers a 2025 browser client sends (MCP transports): each must pass the preflight. */
export const PREFLIGHT_HEADERS = ['content-type', 'authorization', 'mcp-session-id', 'mcp-protocol-version'];

/** The headers a 2026-07-28 browser client adds (SEP-2243). */
export const PREFLIGHT_HEADERS_2026 = ['content-type', 'mcp-protocol-version', 'mcp-method', 'mcp-name'];

/** The response headers a page must read: the session id, and the challenge that starts sign-in. */
export const EXPOSED_HEADERS = ['mcp-session-id', 'www-authenticate'];

const DOCS = 'security.md#browsers-origins-and-cors';

const listOf = (reply: HttpReply, name: string): string[] =>
  (headerOf(reply, name) ?? '')
    .split(',')
    .map((v) => v.trim().toLowerCase())
    .filter(Boolean);

function originAllowed(reply: HttpReply, origin: string): boolean {
  const allowed = headerOf(reply, 'access-control-allow-origin');
  return allowed === origin || allowed === '*';
}

async function preflight(ctx: DoctorContext, origin: string, headers: string[]): Promise<HttpReply> {
  return send(ctx.http, {
    method: 'OPTIONS',
    url: ctx.target.url,
    headers: {
      origin,
      'access-control-request-method': 'POST',
      'access-control-request-headers': headers.join(', '),
    },
  });
}

function refusedHeaders(reply: HttpReply, headers: string[]): string[] {
  const allowed = listOf(reply, 'access-control-allow-headers');
  // `*` allows any header but Authorization, and only without credentials (Fetch › CORS protocol).
  return headers.filter((h) => !allowed.includes(h) && !(allowed.includes('*') && h !== 'authorization'));
}

/** A 403 of a Host check, which refuses every request alike (the eras' `forbidden` findings say so): not the origin's doing. */
function refusedByHost(reply: HttpReply): boolean {
  return reply.status === 403 && /host/i.test(reply.body) && !/origin/i.test(reply.body);
}

async function preflightFindings(ctx: DoctorContext, origin: string): Promise<Finding[]> {
  const reply = await preflight(ctx, origin, PREFLIGHT_HEADERS);
  if (refusedByHost(reply))
    return [
      {
        id: 'cors.host-refused',
        severity: 'info',
        summary: `the preflight from ${origin} got the Host check's 403, as every request does: the origin was not judged`,
        detail: excerpt(reply.body),
      },
    ];
  const refused = refusedHeaders(reply, PREFLIGHT_HEADERS);
  const methods = listOf(reply, 'access-control-allow-methods');
  if (
    reply.status >= 300 ||
    !originAllowed(reply, origin) ||
    refused.length > 0 ||
    (methods.length > 0 && !methods.includes('post'))
  )
    return [
      {
        id: 'cors.preflight',
        severity: 'fail',
        summary:
          reply.status >= 300 || !originAllowed(reply, origin)
            ? `the preflight from ${origin} is refused (OPTIONS → ${reply.status})`
            : `the preflight from ${origin} does not allow ${refused.length ? `the headers ${refused.join(', ')}` : 'POST'}`,
        detail: `OPTIONS → ${reply.status}, Access-Control-Allow-Origin: ${headerOf(reply, 'access-control-allow-origin') ?? '(none)'}, Allow-Headers: ${headerOf(reply, 'access-control-allow-headers') ?? '(none)'}`,
        fix: `Allow the origin and MCP's request headers (this router: add ${origin} to \`origins\`).`,
        docs: DOCS,
      },
    ];
  const findings: Finding[] = [
    { id: 'cors.preflight', severity: 'ok', summary: `the preflight from ${origin} is allowed` },
  ];
  const modern = refusedHeaders(await preflight(ctx, origin, PREFLIGHT_HEADERS_2026), PREFLIGHT_HEADERS_2026);
  if (modern.length > 0)
    findings.push({
      id: 'cors.preflight-2026',
      severity: 'warn',
      summary: `2026-07-28 request headers not allowed: ${modern.join(', ')}`,
      fix: 'Add Mcp-Method and Mcp-Name to the allowed headers, or 2026 browser clients cannot call.',
      docs: DOCS,
    });
  return findings;
}

async function postFindings(ctx: DoctorContext, origin: string): Promise<Finding[]> {
  const reply = await send(ctx.http, {
    method: 'POST',
    url: ctx.target.url,
    headers: { origin, 'content-type': 'application/json', accept: ACCEPT_BOTH, ...baseHeaders(ctx) },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: INITIALIZE_PARAMS }),
  });
  await endSession(ctx, headerOf(reply, 'mcp-session-id'));
  if (reply.status === 403)
    return [
      {
        id: 'cors.origin-refused',
        severity: 'fail',
        summary: `a POST from ${origin} is refused with 403 (the Origin check)`,
        detail: excerpt(reply.body),
        fix: `MCP servers must refuse unknown origins (DNS rebinding); list this one: \`origins: ['${origin}']\` on this router.`,
        docs: DOCS,
      },
    ];
  if (!originAllowed(reply, origin))
    return [
      {
        id: 'cors.post',
        severity: 'fail',
        summary: `the POST's answer (${reply.status}) lacks Access-Control-Allow-Origin for ${origin}: the page cannot read it`,
        fix: 'Answer every request, errors and 401s included, with the CORS headers, not only the preflight.',
        docs: DOCS,
      },
    ];
  const exposed = listOf(reply, 'access-control-expose-headers');
  const missing = EXPOSED_HEADERS.filter((h) => !exposed.includes(h) && !exposed.includes('*'));
  // Each is needed when it is sent: the session id when the server keeps sessions, the challenge when it asks for a token.
  const needed = missing.filter((h) =>
    h === 'mcp-session-id' ? headerOf(reply, h) !== undefined : reply.status === 401,
  );
  if (missing.length > 0)
    return [
      {
        id: 'cors.exposed-headers',
        severity: needed.length > 0 ? 'fail' : 'warn',
        summary: `headers the page cannot read: ${missing.join(', ')}`,
        detail: `Access-Control-Expose-Headers: ${headerOf(reply, 'access-control-expose-headers') ?? '(none)'}`,
        fix: 'Expose Mcp-Session-Id (the page must send it back) and WWW-Authenticate (it starts sign-in), on every answer.',
        docs: DOCS,
      },
    ];
  return [
    {
      id: 'cors.post',
      severity: 'ok',
      summary: `a POST from ${origin} is allowed; Mcp-Session-Id and WWW-Authenticate exposed`,
    },
  ];
}

/**
 * The cors area, for `--origin`: the preflight of a POST with MCP's headers, then a POST from that origin.
 *
 * @example
 * ```ts
 * const findings = await checkCors(ctx);
 * ```
 */
export const checkCors: Check = async (ctx) => {
  const origin = ctx.target.origin;
  if (origin === undefined)
    return [{ id: 'cors.skipped', severity: 'info', summary: 'browser clients not checked: pass --origin <origin>' }];
  const preflighted = await preflightFindings(ctx, origin);
  if (preflighted.some((finding) => finding.id === 'cors.host-refused')) return preflighted;
  return [...preflighted, ...(await postFindings(ctx, origin))];
};
