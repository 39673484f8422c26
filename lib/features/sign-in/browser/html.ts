// What every HTML page of the authorization server shares: escaping of client-supplied text, and its security headers.

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text for HTML content or a quoted attribute: what pages show comes from clients (names, hosts, `state`). */
export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => ESCAPES[c] as string);

/**
 * Headers of every page (RFC 9700 §4.16: no framing — clickjacking; a per-request page is never cached; its URL,
 * which may hold a `state`, never leaves in a Referer). Each page adds its own Content-Security-Policy.
 */
export const PAGE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'X-Frame-Options': 'DENY',
  'Cache-Control': 'no-store',
  'Referrer-Policy': 'no-referrer',
  'X-Content-Type-Options': 'nosniff',
});
