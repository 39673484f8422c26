// The Sandbox proxy of SEP-1865 ("Sandbox proxy", for hosts that are web pages): served on an origin other than the
// host's, it loads the view the host sends into an inner iframe, and relays every other message between the host and
// the view. The view's CSP is this page's own (its server builds it from the `csp` in the page's URL: sandbox-csp.ts);
// the view, an srcdoc, inherits it.

const SANDBOX_METHODS = 'ui/notifications/sandbox-';
const DEFAULT_SANDBOX = 'allow-scripts allow-same-origin allow-forms';
// SEP-1865 `permissions` → Permissions Policy feature names for the inner iframe's `allow`.
const PERMISSIONS = {
  camera: 'camera',
  microphone: 'microphone',
  geolocation: 'geolocation',
  clipboardWrite: 'clipboard-write',
};
const inner = document.getElementById('view');
// The host's origin, given by the host in the URL: messages go to it alone, and come only from it.
const hostOrigin = new URLSearchParams(location.search).get('host');

/** ui/notifications/sandbox-resource-ready: the view, once; a second one would swap the document under the host. */
let loaded = false;
function load({ html, permissions, sandbox } = {}) {
  if (loaded || typeof html !== 'string') return;
  loaded = true;
  inner.setAttribute('sandbox', typeof sandbox === 'string' ? sandbox : DEFAULT_SANDBOX);
  const allowed = Object.keys(permissions ?? {})
    .map((key) => PERMISSIONS[key])
    .filter(Boolean);
  if (allowed.length > 0) inner.setAttribute('allow', allowed.join('; '));
  inner.srcdoc = html;
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
