// The Sandbox proxy of SEP-1865 ("Sandbox proxy", for hosts that are web pages): served on an origin other than the
// host's, it loads the view the host sends into an inner iframe under a CSP built from the resource's `_meta.ui.csp`,
// and relays every other message between the host and the view.

const SANDBOX_METHODS = 'ui/notifications/sandbox-';
const DEFAULT_SANDBOX = 'allow-scripts allow-same-origin allow-forms';
// SEP-1865 `permissions` → Permissions Policy feature names for the inner iframe's `allow`.
const PERMISSIONS = {
  camera: 'camera',
  microphone: 'microphone',
  geolocation: 'geolocation',
  clipboardWrite: 'clipboard-write',
};
// An origin a CSP may name: scheme, host (with an optional leading wildcard label), optional port; nothing else, so
// a declared value can never add a keyword ('unsafe-eval'), a scheme (javascript:) or another directive (;).
const ORIGIN = /^(https?|wss?):\/\/(\*\.)?[a-z0-9-]+(\.[a-z0-9-]+)*(:\d{1,5})?$/i;

const inner = document.getElementById('view');
// The host's origin, given by the host in the URL: messages go to it alone, and come only from it.
const hostOrigin = new URLSearchParams(location.search).get('host');

/** The CSP of the view (SEP-1865 "Content Security Policy"): nothing beyond its document unless the resource declares it. */
function viewCsp(csp = {}) {
  const origins = (key) =>
    Array.isArray(csp[key]) ? csp[key].filter((o) => typeof o === 'string' && ORIGIN.test(o)) : [];
  const resource = origins('resourceDomains').join(' ');
  const frames = origins('frameDomains').join(' ');
  const bases = origins('baseUriDomains').join(' ');
  return [
    "default-src 'none'",
    `script-src 'self' 'unsafe-inline' ${resource}`,
    `style-src 'self' 'unsafe-inline' ${resource}`,
    `connect-src 'self' ${origins('connectDomains').join(' ')}`,
    `img-src 'self' data: ${resource}`,
    `font-src 'self' ${resource}`,
    `media-src 'self' data: ${resource}`,
    `frame-src ${frames || "'none'"}`,
    "object-src 'none'",
    `base-uri ${bases || "'self'"}`,
  ]
    .map((directive) => directive.trim())
    .join('; ');
}

/**
 * The view's HTML with the CSP as the first thing the parser meets after the doctype: a `<meta>` there opens the
 * head itself, so no script of the view can run before the policy (one placed before `<head>`, or a `<head>` hidden
 * in a comment, would escape a meta put after the view's own `<head>`).
 */
function withCsp(html, policy) {
  const meta = `<meta http-equiv="Content-Security-Policy" content="${policy.replace(/"/g, '&quot;')}">`;
  const doctype = /^\s*<!doctype[^>]*>/i.exec(html);
  return doctype ? doctype[0] + meta + html.slice(doctype[0].length) : '<!doctype html>' + meta + html;
}

/** ui/notifications/sandbox-resource-ready: the view, once; a second one would swap the document under the host. */
let loaded = false;
function load({ html, csp, permissions, sandbox } = {}) {
  if (loaded || typeof html !== 'string') return;
  loaded = true;
  const policy = viewCsp(csp);
  inner.dataset.csp = policy;
  inner.setAttribute('sandbox', typeof sandbox === 'string' ? sandbox : DEFAULT_SANDBOX);
  const allowed = Object.keys(permissions ?? {})
    .map((key) => PERMISSIONS[key])
    .filter(Boolean);
  if (allowed.length > 0) inner.setAttribute('allow', allowed.join('; '));
  inner.srcdoc = withCsp(html, policy);
}

const isSandboxMethod = (data) => typeof data?.method === 'string' && data.method.startsWith(SANDBOX_METHODS);

addEventListener('message', (event) => {
  if (event.source === window.parent) {
    if (event.origin !== hostOrigin) return;
    if (event.data?.method === `${SANDBOX_METHODS}resource-ready`) load(event.data.params);
    else if (!isSandboxMethod(event.data)) inner.contentWindow?.postMessage(event.data, '*');
  } else if (event.source === inner.contentWindow && inner.contentWindow) {
    // The view may not speak for the sandbox.
    if (!isSandboxMethod(event.data)) window.parent.postMessage(event.data, hostOrigin);
  }
});

if (hostOrigin && window.parent !== window)
  window.parent.postMessage({ jsonrpc: '2.0', method: `${SANDBOX_METHODS}proxy-ready`, params: {} }, hostOrigin);
