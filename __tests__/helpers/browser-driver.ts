// Test helper: a browser's part of a sign-in, driven with fetch: redirects followed by hand, cookies kept, forms submitted.
// Usage:
//   const end = await followFlow(`${app}/authorize?pending=p1`, {
//     onForm: (page) => (page.forms[0]?.fields.login !== undefined ? { fields: { login: 'alice', password: 'x' } } : { fields: {} }),
//     stopAt: (url) => url.origin === clientOrigin, // a client's redirect URI: returned, not fetched
//   });
//   end.status, end.json(), end.url, end.jar

/** A form on a page: where it posts and its fields (inputs with a name, their values as written). */
export interface PageForm {
  readonly action: URL;
  readonly method: 'GET' | 'POST';
  readonly fields: Readonly<Record<string, string>>;
}

/** An HTML page the flow reached. */
export interface FlowPage {
  readonly url: URL;
  readonly status: number;
  readonly html: string;
  readonly forms: readonly PageForm[];
  /** The page's links (`<a href>`), absolute. */
  readonly links: readonly URL[];
}

/** What to do on a page with a form: submit one (its fields, overridden by `fields`), follow a link, or stop there. */
export type PageAction =
  | { readonly form?: number; readonly fields: Readonly<Record<string, string>> }
  | { readonly follow: URL | string }
  | undefined;

export interface FlowOptions {
  /** Called for each HTML page that has a form; without it, the flow stops at the first such page. */
  readonly onForm?: (page: FlowPage) => PageAction | Promise<PageAction>;
  /** A URL the flow must not fetch (a client's redirect URI): the flow ends there, returning it. */
  readonly stopAt?: (url: URL) => boolean;
  /** The browser's cookies; a fresh jar by default. Pass one to continue in the same "browser". */
  readonly jar?: CookieJar;
  /** The most requests; defaults to 25. */
  readonly maxSteps?: number;
  /** The fetch to browse with (one that trusts a test CA); the global one by default. */
  readonly fetch?: typeof fetch;
}

/** Where the flow ended: the last answer (or, when `stopped`, the URL not fetched). */
export interface FlowEnd {
  readonly url: URL;
  /** True when the flow ended at `stopAt` without fetching `url`. */
  readonly stopped: boolean;
  readonly status: number;
  readonly headers: Headers;
  readonly body: string;
  readonly jar: CookieJar;
  /** Every URL requested, in order. */
  readonly visited: readonly URL[];
  json(): unknown;
}

interface StoredCookie {
  readonly value: string;
  readonly host: string;
  readonly path: string;
  readonly expiresAt: number;
}

/** A browser's cookies: by host (not port, as browsers do), path prefix and expiry; enough for sign-in flows. */
export class CookieJar {
  private readonly cookies = new Map<string, StoredCookie>();

  /** Keeps the cookies a response sets. */
  store(url: URL, headers: Headers): void {
    for (const line of headers.getSetCookie()) {
      const [pair = '', ...attributes] = line.split(';').map((part) => part.trim());
      const at = pair.indexOf('=');
      const name = pair.slice(0, at);
      const attribute = (key: string): string | undefined =>
        attributes.find((part) => part.toLowerCase().startsWith(`${key}=`))?.slice(key.length + 1);
      const maxAge = attribute('max-age');
      const expires = attribute('expires');
      const expiresAt =
        maxAge !== undefined
          ? Date.now() + Number(maxAge) * 1000
          : expires !== undefined
            ? Date.parse(expires)
            : Infinity;
      const path = attribute('path') ?? '/';
      const key = `${url.hostname}|${path}|${name}`;
      if (expiresAt <= Date.now()) this.cookies.delete(key);
      else this.cookies.set(key, { value: pair.slice(at + 1), host: url.hostname, path, expiresAt });
    }
  }

  /** The `Cookie` header for a request to `url`. */
  header(url: URL): string {
    const now = Date.now();
    return [...this.cookies]
      .filter(
        ([, cookie]) => cookie.host === url.hostname && cookie.expiresAt > now && url.pathname.startsWith(cookie.path),
      )
      .map(([key, cookie]) => `${key.slice(key.lastIndexOf('|') + 1)}=${cookie.value}`)
      .join('; ');
  }

  /** The names of the cookies kept for `url`'s host. */
  names(url: URL): string[] {
    return [...this.cookies]
      .filter(([, cookie]) => cookie.host === url.hostname)
      .map(([key]) => key.slice(key.lastIndexOf('|') + 1));
  }
}

const ENTITIES: Record<string, string> = {
  amp: '&',
  quot: '"',
  lt: '<',
  gt: '>',
  apos: "'",
  '#39': "'",
  '#x2F': '/',
  '#47': '/',
};
const decode = (text: string): string => text.replace(/&(#?\w+);/g, (whole, name: string) => ENTITIES[name] ?? whole);

function attributesOf(tag: string): Record<string, string> {
  const found: Record<string, string> = {};
  for (const match of tag.matchAll(/([\w-]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g))
    found[(match[1] ?? '').toLowerCase()] = decode(match[2] ?? match[3] ?? '');
  return found;
}

/** The forms and links of a page, read with regular expressions: enough for the small pages of sign-in flows. */
export function readPage(url: URL, status: number, html: string): FlowPage {
  const forms = [...html.matchAll(/<form\b([^>]*)>([\s\S]*?)<\/form>/gi)].map((match): PageForm => {
    const attributes = attributesOf(match[1] ?? '');
    const fields: Record<string, string> = {};
    for (const input of (match[2] ?? '').matchAll(/<input\b([^>]*)>/gi)) {
      const { name, value, type } = attributesOf(input[1] ?? '');
      if (name !== undefined && type !== 'submit') fields[name] = value ?? '';
    }
    return {
      action: new URL(attributes.action ?? url.href, url),
      method: attributes.method?.toUpperCase() === 'GET' ? 'GET' : 'POST',
      fields,
    };
  });
  const links = [...html.matchAll(/<a\b([^>]*)>/gi)].flatMap((match) => {
    const { href } = attributesOf(match[1] ?? '');
    return href === undefined ? [] : [new URL(href, url)];
  });
  return { url, status, html, forms, links };
}

/**
 * Follows a browser's sign-in flow from `startUrl`: redirects by hand (cookies kept), and each page with a form
 * answered by `onForm`. Ends at a page that neither redirects nor has a form to answer, or at `stopAt`.
 */
export async function followFlow(startUrl: URL | string, options: FlowOptions = {}): Promise<FlowEnd> {
  const jar = options.jar ?? new CookieJar();
  const visited: URL[] = [];
  let request: { url: URL; method: 'GET' | 'POST'; body?: URLSearchParams } = { url: new URL(startUrl), method: 'GET' };
  for (let step = 0; step < (options.maxSteps ?? 25); step += 1) {
    visited.push(request.url);
    const response = await (options.fetch ?? fetch)(request.url, {
      method: request.method,
      body: request.body,
      redirect: 'manual',
      headers: { cookie: jar.header(request.url) },
    });
    jar.store(request.url, response.headers);
    const body = await response.text();
    const end = (url: URL, stopped: boolean): FlowEnd => ({
      url,
      stopped,
      status: response.status,
      headers: response.headers,
      body,
      jar,
      visited,
      json: () => JSON.parse(body) as unknown,
    });
    const location = response.headers.get('location');
    if (response.status >= 300 && response.status < 400 && location !== null) {
      const next = new URL(location, request.url);
      if (options.stopAt?.(next)) return end(next, true);
      request = { url: next, method: 'GET' };
      continue;
    }
    const page = readPage(request.url, response.status, body);
    if (page.forms.length === 0 || options.onForm === undefined) return end(request.url, false);
    const action = await options.onForm(page);
    if (action === undefined) return end(request.url, false);
    if ('follow' in action) {
      request = { url: new URL(action.follow, request.url), method: 'GET' };
      continue;
    }
    const form = page.forms[action.form ?? 0];
    if (form === undefined) throw new Error(`no form ${action.form ?? 0} on ${request.url.href}`);
    const fields = new URLSearchParams({ ...form.fields, ...action.fields });
    if (form.method === 'GET') {
      const url = new URL(form.action);
      for (const [name, value] of fields) url.searchParams.set(name, value);
      request = { url, method: 'GET' };
    } else {
      request = { url: form.action, method: 'POST', body: fields };
    }
    if (options.stopAt?.(request.url)) return end(request.url, true);
  }
  throw new Error(`the flow from ${String(startUrl)} did not end within ${options.maxSteps ?? 25} requests`);
}
