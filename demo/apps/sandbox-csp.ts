// The CSP of a view in the demo's sandbox proxy (SEP-1865 "Sandbox proxy" step 5), sent as the sandbox page's own
// Content-Security-Policy header: the view is an `srcdoc` document inside that page, which inherits the page's policy,
// so the view and the page it sits in (whose origin it shares) are held to the same rules.

/** `_meta.ui.csp` of SEP-1865: the origins a view declares. */
export type ViewCsp = Partial<
  Record<'connectDomains' | 'resourceDomains' | 'frameDomains' | 'baseUriDomains', unknown>
>;

// An origin a CSP may name: scheme, host (with an optional leading wildcard label), optional port; nothing else, so
// a declared value can never add a keyword ('unsafe-eval'), a scheme (javascript:) or another directive (;).
const ORIGIN = /^(https?|wss?):\/\/(\*\.)?[a-z0-9-]+(\.[a-z0-9-]+)*(:\d{1,5})?$/i;

/** The declared origins of one list that are origins, space-separated ('' for none). */
function origins(csp: ViewCsp, key: keyof ViewCsp): string {
  const list = csp[key];
  return Array.isArray(list) ? list.filter((o): o is string => typeof o === 'string' && ORIGIN.test(o)).join(' ') : '';
}

/**
 * SEP-1865's policy for `csp` (its restrictive default when nothing is declared), plus `form-action 'none'`: a form
 * posted to another origin would carry data out as surely as a fetch, and hosts may restrict further.
 */
export function viewPolicy(csp: ViewCsp = {}): string {
  const resource = origins(csp, 'resourceDomains');
  return [
    "default-src 'none'",
    `script-src 'self' 'unsafe-inline' ${resource}`,
    `style-src 'self' 'unsafe-inline' ${resource}`,
    `connect-src 'self' ${origins(csp, 'connectDomains')}`,
    `img-src 'self' data: ${resource}`,
    `font-src 'self' ${resource}`,
    `media-src 'self' data: ${resource}`,
    `frame-src ${origins(csp, 'frameDomains') || "'none'"}`,
    "object-src 'none'",
    `base-uri ${origins(csp, 'baseUriDomains') || "'self'"}`,
    "form-action 'none'",
  ]
    .map((directive) => directive.trim())
    .join('; ');
}

/** The `csp` query parameter the host put in the sandbox page's URL (JSON of `_meta.ui.csp`); anything else is none. */
export function cspOfQuery(value: unknown): ViewCsp {
  if (typeof value !== 'string') return {};
  try {
    const parsed: unknown = JSON.parse(value);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as ViewCsp) : {};
  } catch {
    return {};
  }
}
