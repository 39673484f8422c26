// Fetches the JSON documents of OAuth discovery as a browser-capable client does: once per URL, with an Origin, same-origin redirects followed.

import { HttpFailure, headerOf, send, type HttpReply, type HttpRequest, type HttpSettings } from '../http';

/** How many redirects within one origin are followed, as the SDK clients follow them (a browser follows up to 20). */
export const MAX_REDIRECTS = 3;

/** The revision whose header discovery requests carry, as the SDK clients send it. */
const DISCOVERY_PROTOCOL_VERSION = '2025-11-25';

/** What one URL gave. */
export interface Fetched {
  /** The URL asked. */
  readonly url: string;
  /** The redirects followed, each hop's target. */
  readonly redirects: readonly string[];
  /** The last answer, when there was one. */
  readonly reply?: HttpReply;
  /** The JSON object the answer held, when it was a 200 with one. */
  readonly json?: Readonly<Record<string, unknown>>;
  /** Why there is no `json`: no answer, a status, a redirect elsewhere, not JSON, cut short. */
  readonly problem?: string;
  /** A redirect to another origin, which clients do not follow for discovery. */
  readonly elsewhere?: string;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** Whether a browser at `origin` may read the answer: `Access-Control-Allow-Origin` is `*` or that origin. */
export function corsReadable(reply: HttpReply, origin: string): boolean {
  const allowed = headerOf(reply, 'access-control-allow-origin')?.trim();
  return allowed === '*' || allowed === origin;
}

/** The same-origin target of a redirect reply, a cross-origin one, or nothing (not a redirect, no Location). */
function redirectOf(reply: HttpReply, from: string): { next?: string; elsewhere?: string } {
  const location = headerOf(reply, 'location');
  if (!REDIRECTS.has(reply.status) || location === undefined) return {};
  const target = new URL(location, from);
  return target.origin === new URL(from).origin ? { next: target.href } : { elsewhere: target.href };
}

/** The problem of a final reply, or its JSON object. */
function jsonOf(reply: HttpReply): { json?: Record<string, unknown>; problem?: string } {
  if (reply.status !== 200) return { problem: `answered ${reply.status}` };
  if (reply.truncated) return { problem: 'was cut at the byte limit' };
  if (reply.timedOut) return { problem: 'did not finish within the time limit' };
  try {
    const parsed: unknown = JSON.parse(reply.body);
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed))
      return { json: parsed as Record<string, unknown> };
    return { problem: 'answered JSON that is not an object' };
  } catch {
    const type = headerOf(reply, 'content-type') ?? 'no content type';
    return { problem: `answered 200 with a body that is not JSON (${type.split(';')[0]})` };
  }
}

/**
 * Sends `request`, following redirects within its origin (a 303, and a 301 or 302 after POST, turn into a GET, as
 * fetch does); returns the final reply and the hops, or why there is none.
 */
export async function follow(
  settings: HttpSettings,
  request: HttpRequest,
): Promise<{ reply?: HttpReply; redirects: string[]; elsewhere?: string; failure?: string }> {
  const redirects: string[] = [];
  let current = request;
  for (;;) {
    let reply: HttpReply;
    try {
      reply = await send(settings, current);
    } catch (error) {
      const reason = error instanceof HttpFailure ? `${error.message} (${error.code})` : String(error);
      return { redirects, failure: reason };
    }
    const { next, elsewhere } = redirectOf(reply, String(current.url));
    if (elsewhere !== undefined) return { reply, redirects, elsewhere };
    if (next === undefined || redirects.length === MAX_REDIRECTS) return { reply, redirects };
    redirects.push(next);
    const keepsMethod = reply.status === 307 || reply.status === 308 || current.method === 'GET';
    current = keepsMethod ? { ...current, url: next } : { method: 'GET', url: next, ...headersOnly(current) };
  }
}

const headersOnly = (request: HttpRequest): Pick<HttpRequest, 'headers'> =>
  request.headers === undefined ? {} : { headers: request.headers };

/** Discovery documents of one run: each URL fetched at most once, with the browser origin CORS is checked for. */
export class DocumentFetcher {
  private readonly fetched = new Map<string, Promise<Fetched>>();

  constructor(
    private readonly settings: HttpSettings,
    /** The origin sent, so the answer shows whether a browser client may read it. */
    readonly origin: string,
  ) {}

  /** The document at `url`, fetched on the first ask. */
  get(url: string): Promise<Fetched> {
    let found = this.fetched.get(url);
    if (found === undefined) this.fetched.set(url, (found = this.load(url)));
    return found;
  }

  private async load(url: string): Promise<Fetched> {
    const headers = {
      accept: 'application/json',
      origin: this.origin,
      'mcp-protocol-version': DISCOVERY_PROTOCOL_VERSION,
    };
    const { reply, redirects, elsewhere, failure } = await follow(this.settings, { method: 'GET', url, headers });
    if (reply === undefined) return { url, redirects, problem: `got no answer: ${failure ?? 'unknown'}` };
    if (elsewhere !== undefined)
      return { url, redirects, reply, elsewhere, problem: `redirects to another origin (${elsewhere})` };
    return { url, redirects, reply, ...jsonOf(reply) };
  }
}
