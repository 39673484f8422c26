// The authorization error page: an error for a client the server does not vouch for, shown on the router's own origin with a link back.

import type { ServerResponse } from 'node:http';
import { escapeHtml, PAGE_HEADERS } from './html';

/** What the error page shows. */
export interface ErrorPageDetails {
  /** The RFC 6749 §4.1.2.1 error code. */
  readonly error: string;
  /** What was wrong, for the developer. */
  readonly description: string;
  /** The client's redirect URI carrying the error, `state` and `iss`: the redirect RFC 6749 §4.1.2.1 would make. */
  readonly location: string;
}

/**
 * No script, no form, no image, nothing from elsewhere: the inline style only. A link is a navigation, which no CSP
 * directive governs, so the way back to the client still works.
 */
const CSP =
  "default-src 'none'; style-src 'unsafe-inline'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'";

/**
 * Answers 400 with the router's error page: the error, and a link the user may follow to the client's redirect URI
 * (the error redirect of RFC 6749 §4.1.2.1, made only when the user chooses to; RFC 9700 §4.11.2). Everything shown
 * comes from the request or the client's registration, so all of it is escaped.
 */
export function renderErrorPage(details: ErrorPageDetails, res: ServerResponse): void {
  const url = new URL(details.location);
  // The host is what the user should recognise; a native app's private-use scheme has none, so its scheme instead.
  const where = escapeHtml(url.host === '' ? url.protocol : url.host);
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sign-in request refused</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem;color:#1a1a1a}
.host{font-family:monospace}a:focus{outline:3px solid #f59e0b;outline-offset:2px}</style></head>
<body><main><h1>Sign-in request refused</h1>
<p>The application asked to sign you in with a request this server cannot accept:</p>
<p><code>${escapeHtml(details.error)}</code>: ${escapeHtml(details.description)}</p>
<p>Nothing was shared. You may close this page, or <a href="${escapeHtml(details.location)}" rel="noreferrer">return
the error to the application at <span class="host">${where}</span></a>.</p>
</main></body></html>`;
  res.writeHead(400, {
    ...PAGE_HEADERS,
    'Content-Security-Policy': CSP,
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Length': Buffer.byteLength(html),
  });
  res.end(html);
}
