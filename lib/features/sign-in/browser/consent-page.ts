// The consent page: a small accessible form, no script, no framework, its own CSP; replaceable by `consent.render`.

import type { ServerResponse } from 'node:http';
import { escapeHtml, PAGE_HEADERS } from './html';

/** What a consent page shows and posts. */
export interface ConsentDetails {
  /** The client's name (from its registration or metadata document), else its id. */
  readonly clientName: string;
  /** The client's id at this authorization server, shown so the user can tell two clients of the same name apart. */
  readonly clientId: string;
  /** Where the browser goes after consent: the host of the client's redirect URI (what the user should recognise). */
  readonly redirectHost: string;
  /** The scopes asked; empty when the server has none. */
  readonly scopes: readonly string[];
  /** Who is signed in. */
  readonly subject: string;
  /** The URL the form posts to. */
  readonly action: string;
  /** Hidden fields the form must post as they are (the pending request and its CSRF token). */
  readonly fields: Readonly<Record<string, string>>;
}

/**
 * Headers of every consent page (RFC 9700 §4.16: no framing — clickjacking; no caching of a per-request form). The
 * CSP allows only the inline style below, and the form's post to this origin followed by the redirect to the
 * client: CSP3 `form-action` also covers the redirects after a form is sent, and Chromium blocks a consent POST
 * whose redirect (the code or the denial) leaves for a target the directive does not list.
 *
 * @param redirectUri - the client's redirect URI of this authorization request
 */
export function consentPageHeaders(redirectUri: string): Readonly<Record<string, string>> {
  return {
    'Content-Security-Policy': `default-src 'none'; style-src 'unsafe-inline'; form-action 'self' ${formActionSource(redirectUri)}; frame-ancestors 'none'; base-uri 'none'`,
    ...PAGE_HEADERS,
  };
}

/**
 * The CSP source (CSP3 §2.3.1) of a redirect URI: its origin (`http://127.0.0.1:54321`), or its scheme alone
 * (`cursor:`, `https:`) when the origin cannot be written as a host-source (a native app's private-use scheme, an
 * IPv6 literal, a host with characters the grammar has no room for).
 */
function formActionSource(redirectUri: string): string {
  const url = new URL(redirectUri);
  const origin = `${url.protocol}//${url.host}`;
  return /^https?:\/\/[A-Za-z0-9.-]+(:\d+)?$/.test(origin) ? origin : url.protocol;
}

/** The router's own consent page; the caller has set {@link consentPageHeaders}. */
export function renderConsentPage(details: ConsentDetails, res: ServerResponse): void {
  const name = escapeHtml(details.clientName);
  const scopes =
    details.scopes.length === 0
      ? '<p>It asks for no particular scope: it will act as you on this server.</p>'
      : `<ul>${details.scopes.map((scope) => `<li><code>${escapeHtml(scope)}</code></li>`).join('')}</ul>`;
  const hidden = Object.entries(details.fields)
    .map(([field, value]) => `<input type="hidden" name="${escapeHtml(field)}" value="${escapeHtml(value)}">`)
    .join('');
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Allow ${name}?</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem;color:#1a1a1a}
.client{font-weight:600}.host{font-family:monospace}button{font:inherit;padding:.5rem 1.2rem;margin-right:.5rem;border-radius:.3rem;border:1px solid #555;cursor:pointer}
button[value=allow]{background:#1a56db;color:#fff;border-color:#1a56db}button:focus{outline:3px solid #f59e0b;outline-offset:2px}</style></head>
<body><main><h1>Allow <span class="client">${name}</span>?</h1>
<p>Signed in as <strong>${escapeHtml(details.subject)}</strong>. <span class="client">${name}</span> wants to use this MCP server on your behalf.
After you answer, you go back to <span class="host">${escapeHtml(details.redirectHost)}</span>.</p>
${scopes}
<p>Client id: <code>${escapeHtml(details.clientId)}</code></p>
<form method="post" action="${escapeHtml(details.action)}">${hidden}
<button type="submit" name="decision" value="allow">Allow</button><button type="submit" name="decision" value="deny">Deny</button>
</form></main></body></html>`;
  res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Content-Length': Buffer.byteLength(html) });
  res.end(html);
}
