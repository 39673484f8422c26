// An upstream's `auth`: each caller's request sent with the caller's exchanged token (retried once on 401), and a 2025 upstream's session per caller.

import { stateful } from '../../../core/era-policy';
import type { RequestContext } from '../../../core/registry/request-context';
import type { CallerPool, UpstreamClient, UpstreamRequestOptions } from '../shared/upstream-client';
import { CallerTokenError, CredentialsRefusedError } from '../shared/upstream-wire';
import { dropToken, leaseToken, type TokenExchange } from '../exchange/token-exchange';

/** Default bound of the 2025 sessions kept per caller of one upstream: the least recently used one is ended past it. */
export const MAX_CALLER_SESSIONS = 1_000;

const isUnauthorized = (err: unknown): boolean => err instanceof CredentialsRefusedError && err.status === 401;

/**
 * Sends a caller's request with `Authorization: Bearer <the caller's exchanged token>`. A 401 means the upstream no
 * longer takes that token (revoked, rotated keys): it is dropped, exchanged once more and the request retried once;
 * a second 401 is the call's failure. A failed exchange, like that second 401, is an Error (a tool's `isError`
 * result) naming the upstream, never the token or the IdP's text.
 */
export async function asCaller<T>(
  label: string,
  auth: TokenExchange,
  ctx: RequestContext,
  send: (authorization: string) => Promise<T>,
): Promise<T> {
  const first = await leaseToken(auth, ctx, label);
  try {
    return await send(`Bearer ${first.token}`);
  } catch (err) {
    if (!isUnauthorized(err)) throw err;
  }
  await dropToken(auth, first);
  const second = await leaseToken(auth, ctx, label);
  try {
    return await send(`Bearer ${second.token}`);
  } catch (err) {
    if (isUnauthorized(err))
      throw new CallerTokenError(`Upstream "${label}" refused the caller's exchanged token (HTTP 401)`);
    throw err;
  }
}

/** One caller's 2025 session: its client, and the token its requests carry (the latest the caller's requests brought). */
interface CallerSession {
  readonly client: UpstreamClient;
  readonly via: Pick<UpstreamClient, 'request'>;
  authorization: string | undefined;
}

/**
 * Where each caller's requests go when the upstream is called as the caller. A 2026 upstream keeps no session: the
 * shared client, the caller's token on each request. A 2025 session belongs to the principal that opened it (MCP
 * security best practices › Session Hijacking: servers bind sessions to the user; this router answers another
 * principal's session 404), so each caller (by subject) gets a session of its own, opened with its own token, at
 * most `max` of them (the least recently used is ended, DELETE, past it).
 *
 * @param open - a client of the upstream whose headers are `headers()` at each request
 */
export function callerSessions(
  shared: UpstreamClient,
  open: (headers: () => Record<string, string>) => UpstreamClient,
  max = MAX_CALLER_SESSIONS,
): CallerPool & { close(): Promise<void> } {
  const sessions = new Map<string, CallerSession>();
  const sessionOf = (subject: string): CallerSession => {
    const known = sessions.get(subject);
    if (known !== undefined) {
      sessions.delete(subject);
      sessions.set(subject, known);
      return known;
    }
    const session: CallerSession = {
      authorization: undefined,
      client: open((): Record<string, string> =>
        session.authorization === undefined ? {} : { authorization: session.authorization },
      ),
      // The handshake, and later the session's own requests, carry the token of the caller's latest request.
      via: {
        request: (method: string, params: Record<string, unknown> | undefined, options?: UpstreamRequestOptions) => {
          session.authorization = options?.headers?.authorization ?? session.authorization;
          return session.client.request(method, params, options);
        },
      },
    };
    sessions.set(subject, session);
    for (const [oldest, ended] of sessions) {
      if (sessions.size <= max) break;
      sessions.delete(oldest);
      void ended.client.close();
    }
    return session;
  };
  return {
    clientFor(ctx: RequestContext) {
      const subject = ctx.auth?.subject;
      // Until the shared client knows the era, a caller's own client probes it.
      if (subject === undefined || (shared.era !== undefined && !stateful(shared.era))) return shared;
      return sessionOf(subject).via;
    },
    get size() {
      return sessions.size;
    },
    async close() {
      const all = [...sessions.values()];
      sessions.clear();
      await Promise.all(all.map(({ client }) => client.close()));
    },
  };
}
