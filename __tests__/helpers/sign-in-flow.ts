// The browser's part of the router's own sign-in: followFlow (browser-driver.ts) answering the consent form.

import { CookieJar, followFlow, type FlowPage, type PageAction } from './browser-driver';

export { CookieJar };

/** Where the sign-in ended: the client's redirect URI (not fetched), and how many consent pages were answered. */
export interface SignInEnd {
  readonly location: URL;
  readonly consentPages: number;
}

/**
 * Follows an authorization URL through the app's login and the router's consent page (answered with `decision`)
 * until the redirect to a URL starting with `stopAt` (the client's redirect URI).
 *
 * @throws when the flow ends anywhere else (an error page, a JSON error)
 */
export async function followSignIn(
  start: string,
  options: {
    stopAt: string;
    jar?: CookieJar;
    decision?: 'allow' | 'deny';
    /** Answers other forms on the way (an upstream provider's login). */ login?: (page: FlowPage) => PageAction;
    /** The browser's fetch (one that trusts a test CA); the global one by default. */
    fetch?: typeof fetch;
  },
): Promise<SignInEnd> {
  let consentPages = 0;
  const end = await followFlow(start, {
    jar: options.jar,
    fetch: options.fetch,
    stopAt: (url) => url.href.startsWith(options.stopAt),
    onForm: (page) => {
      // The router's consent form is the one with a CSRF token; others (a provider's login) go to `login`.
      if (page.forms[0]?.fields.csrf === undefined) return options.login?.(page);
      consentPages++;
      return { fields: { decision: options.decision ?? 'allow' } };
    },
  });
  if (!end.stopped) throw new Error(`the sign-in stopped at ${end.url.href}: ${end.status} ${end.body.slice(0, 300)}`);
  return { location: end.url, consentPages };
}
