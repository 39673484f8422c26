// Plays the browser in the router's sign-in: follows an authorization URL through logins and the consent form to the client's redirect.

/** Cookies of one browser: name → value, as Set-Cookie left them. */
export class CookieJar {
  private readonly cookies = new Map<string, string>();

  /** Keeps the cookies a response sets. */
  take(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const at = pair.indexOf('=');
      if (at > 0) this.cookies.set(pair.slice(0, at).trim(), pair.slice(at + 1).trim());
    }
  }

  set(name: string, value: string): void {
    this.cookies.set(name, value);
  }

  get header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }
}

/** A form on an HTML page: where it posts and its hidden fields. */
export interface PageForm {
  readonly action: string;
  readonly fields: Record<string, string>;
}

/** The first form of a page (the router's consent page, or a provider's login form). */
export function formOf(html: string, base: string): PageForm {
  const form = /<form[^>]*action="([^"]*)"[^>]*>([\s\S]*?)<\/form>/i.exec(html);
  if (form === null) throw new Error(`no form on the page: ${html.slice(0, 200)}`);
  const fields: Record<string, string> = {};
  for (const input of (form[2] as string).matchAll(/<input[^>]*>/gi)) {
    const name = /name="([^"]*)"/.exec(input[0])?.[1];
    const value = /value="([^"]*)"/.exec(input[0])?.[1] ?? '';
    if (name !== undefined) fields[name] = value.replace(/&amp;/g, '&').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>');
  }
  return { action: new URL((form[1] as string).replace(/&amp;/g, '&'), base).href, fields };
}

/** What the flow ended with: the URL the browser was sent to outside the servers it drove. */
export interface FlowEnd {
  readonly location: URL;
  /** Every consent page seen on the way. */
  readonly consentPages: number;
}

/**
 * Follows `start` as a browser would: redirects by hand (cookies kept), consent pages answered with `decision`,
 * until a redirect leaves for a URL starting with `stopAt` (the client's redirect URI), which is returned unvisited.
 */
export async function followSignIn(start: string, options: { stopAt: string; jar?: CookieJar; decision?: 'allow' | 'deny'; maxSteps?: number }): Promise<FlowEnd> {
  const jar = options.jar ?? new CookieJar();
  let url = start;
  let init: RequestInit = { method: 'GET' };
  let consentPages = 0;
  for (let step = 0; step < (options.maxSteps ?? 20); step++) {
    if (url.startsWith(options.stopAt)) return { location: new URL(url), consentPages };
    const response = await fetch(url, { ...init, redirect: 'manual', headers: { ...(init.headers as Record<string, string>), cookie: jar.header } });
    jar.take(response);
    const location = response.headers.get('location');
    if (response.status >= 300 && response.status < 400 && location !== null) {
      url = new URL(location, url).href;
      init = { method: 'GET' };
      continue;
    }
    const body = await response.text();
    if (response.status !== 200 || !(response.headers.get('content-type') ?? '').includes('text/html')) {
      throw new Error(`the flow stopped at ${url}: ${response.status} ${body.slice(0, 300)}`);
    }
    consentPages++;
    const form = formOf(body, url);
    url = form.action;
    init = {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ ...form.fields, decision: options.decision ?? 'allow' }).toString(),
    };
  }
  throw new Error('the flow did not reach the client within its steps');
}
